// One of a GPU's collective streams (the DP gradient buckets', each TP axis's under tp_overlap):
// an actor that runs the collectives started on it one after another, as a CUDA stream runs
// NCCL's kernels. One actor per stream rather than one per collective: each SimGrid actor's
// stack is mapped, touched and unmapped, and an overlapped replay starts millions of
// collectives (docs/performance.md, "Collective streams").
#pragma once

#include <deque>
#include <functional>

#include <simgrid/forward.h>

namespace trainsim::sim {

class StreamWorker {
public:
  using Job = std::function<void()>;

  /// Starts the stream's actor on `host`; it waits for jobs.
  explicit StreamWorker(simgrid::s4u::Host* host);
  StreamWorker(const StreamWorker&) = delete;
  StreamWorker& operator=(const StreamWorker&) = delete;

  /// Queues `job` behind every job posted before it; returns its position (0, 1, ...).
  long post(Job job);
  /// Blocks the calling actor until the job at `position` has run.
  void wait_for(long position);
  /// Whether every job posted has run.
  [[nodiscard]] bool idle() const { return done_ == posted_; }
  /// Its actor's SimGrid pid.
  [[nodiscard]] long pid() const;
  /// Lets the stream run what it holds, ends its actor and waits for it.
  void stop();

private:
  void run();

  std::deque<Job> jobs_;
  long posted_ = 0, done_ = 0;
  bool stopping_ = false;
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr posted_cv_, done_cv_;
  simgrid::s4u::ActorPtr actor_;
};

} // namespace trainsim::sim
