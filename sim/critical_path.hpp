// The step's critical path, followed as the simulation runs: the chain of work and hand-overs
// that the last GPU's finish depends on. Each actor (a GPU, or one of its collective streams)
// carries the path that led to where it is now. A transfer starts when the later of its two
// sides posts; a side that then waited for it to end takes over the other side's path as it
// was when that side posted, if the other side posted later. So do the members of a barrier
// (the last to arrive hands over), a GPU that waited for its stream's collective, and a stream
// job that started as soon as its GPU posted it. Any other wait (a side that posted last, a
// stream behind its own earlier jobs) leaves the path where it was. At the end, the path of
// the GPU that finished last is the step's.
//
// A path is a list shared by every actor whose path passes through it, so memory follows the
// chains still alive, not the ops run. Off unless SimOptions::critical_path asks for it.
//
// Contention: a hand-over's transfer that took longer than it would on idle links (its route's
// latency plus its bytes at the narrowest link) waited that long on flows sharing its links.
// The path says how long (PathStep::alone); it does not follow those flows.
// Not followed: the members of a collective priced whole (run alone), which wait for no one.
#pragma once

#include <string_view>
#include <vector>

#include <simgrid/forward.h>

#include "sim/stats.hpp"

namespace trainsim::sim {
class Platform;
}

namespace trainsim::sim::critical_path {

/// Starts following paths in this process (one simulation per child process) for `ranks` GPUs.
void enable(int ranks);
[[nodiscard]] bool on();

/// The calling actor is GPU `rank`'s, its path starting now.
void start_gpu(int rank);

/// The calling actor has just posted `comm`, a send or a receive on `channel` ("pp", "dp",
/// "dp.ep", ...). Both sides of a message share SimGrid's comm once matched. A send gives its
/// `bytes` and its rate cap (0: none), which price the transfer on idle links.
void posted(const simgrid::s4u::Comm& comm, bool send, std::string_view channel, double bytes = 0,
            double rate = 0);
/// The calling actor's posted `comm` has completed, after it waited since `since`. Where it
/// waited and the other side posted later, the other side's post started the transfer.
void completed(const simgrid::s4u::Comm& comm, double since);

/// A barrier (a merged ring's members leaving together, a node's meeting): each member is
/// held until the last arrives, whose path the others then take over. arriving() before the
/// wait, left() after it; `channel` names what the members meet for ("dp", "tp", ...).
struct Ticket {
  const void* barrier = nullptr; ///< null: paths are not followed
  long generation = 0;
  double since = 0;
  PathStep::Via via = PathStep::Via::start;
};
[[nodiscard]] Ticket arriving(const void* barrier, int members, std::string_view channel);
void left(const Ticket& ticket);

/// The calling actor, a stream of GPU `rank` whose actor is `gpu_pid`, starts a job that GPU
/// posted at `posted`; job_ends() when it has run.
void job_starts(int rank, long gpu_pid, double posted);
void job_ends();

/// The calling GPU waited since `since` for a job of the stream whose actor is `stream_pid`.
void joined(long stream_pid, double since);

/// The path of the GPU that finished last among those that ran as actors (ties: the lowest
/// rank), first stretch first. Each transfer's time on idle links (PathStep::alone) is priced
/// here, on the platform's routes: call it before the engine goes.
[[nodiscard]] std::vector<PathStep> of_step(const std::vector<RankStats>& ranks,
                                            const Platform& platform);

} // namespace trainsim::sim::critical_path
