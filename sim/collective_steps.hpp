// Building blocks the collective algorithms share (internal to sim/): one send or receive,
// ring rounds over any ring of members, the inboxes of a group's sub-channels looked up once,
// and the factories of the algorithms registered in collectives.cpp.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include <simgrid/forward.h>

#include "sim/collectives.hpp"
#include "sim/waits.hpp"

namespace trainsim::sim::detail {

using Inboxes = Channel; // indexed by rank, mailboxes created on first use

/// Posts `bytes` to `to_rank`'s inbox and counts the comm; `rate` > 0 caps its bandwidth (B/s).
simgrid::s4u::CommPtr send(const Inboxes& inboxes, int to_rank, double bytes,
                           const CollectiveEnv& env, double rate = 0);
/// Posts a receive on `my_rank`'s inbox.
simgrid::s4u::CommPtr receive(const Inboxes& inboxes, int my_rank);

/// A ring of members on one channel: this rank sends to `next` and receives from its
/// predecessor; with channels > 1 (the group's own ring: GroupSpan::ring_channels()), it
/// sends to its next member on each of those rings and receives from its predecessor on each.
struct RingView {
  const Inboxes* inboxes = nullptr;
  int me = 0;          ///< this rank
  int next = 0;        ///< the rank this one sends to (channel 0's)
  Seconds hop_latency; ///< path latency from me to next
  GroupSpan members;   ///< the whole ring, member i sending to member i + 1
  int index = 0;       ///< this rank's member index in `members` (channels > 1)
  int channels = 1;    ///< rings side by side, each carrying 1/channels of the bytes
  /// Every member is an actor of this simulation (false under replica bundling, whose rings
  /// send to a stand-in: sim/replica_bundle.hpp), so all of them meet when the ring ends.
  bool whole = true;
};

/// The group's own ring (member me -> its ring_next()) on `inboxes`.
RingView ring_of(const Group& g, const Inboxes& inboxes);

/// Ring rounds of an op over `size` members: 2(p-1) for an all-reduce, p-1 otherwise.
int ring_steps(CollectiveOp op, int size);

/// `steps` rounds in which every rank passes `segment` bytes to the next one (segment / channels
/// on each channel's ring). Fine mode's rounds
/// run in lockstep, each as long as the slowest neighbour pair's. Fast mode sends the rounds'
/// bytes as one flow and pays the other rounds' latency as a wait, half before the flow and
/// half after; when the ring's pairs
/// differ (some over NVLink, some over the network) every flow is capped at the slowest
/// pair's bandwidth and waits out the slowest pair's latency, so that a rank on a fast pair
/// does not finish early: without contention both modes take steps x (latency + segment /
/// bandwidth) of the slowest pair.
void ring_rounds(const RingView& ring, int steps, double segment, const CollectiveEnv& env);

/// What `count` back-to-back ring collectives of `bytes` take on `g`'s own ring when nothing
/// else uses its links: ring_rounds()'s time for them without contention, steps x (latency +
/// segment / rate), the rate being the slowest pair's bandwidth or NCCL's efficiency over NVLink.
/// The group's ring must have one latency and bandwidth for every pair.
Seconds ring_alone(CollectiveOp op, const Group& g, Bytes bytes, int count,
                   const CollectiveEnv& env);

/// Exchanges of a direct collective: 2 for an all-reduce, 1 for a reduce-scatter or all-gather.
int direct_phases(CollectiveOp op);

/// What `count` back-to-back direct collectives of `bytes` take on `g` when nothing else uses
/// its links: phases x (latency + (p-1) n / (p B)) on the group's pairs, which must all have
/// one latency and bandwidth (one node's NVLink).
Seconds direct_alone(CollectiveOp op, const Group& g, Bytes bytes, int count,
                     const CollectiveEnv& env);

/// The inboxes of `channel + "." + suffix` for each suffix, per group channel. Building the
/// names on every call would allocate in the hot path, so they are looked up once per channel
/// and Mailboxes instance. Not thread-safe: SimGrid runs all actors on one thread.
template <size_t N>
class SubChannels {
public:
  explicit SubChannels(std::array<const char*, N> suffixes) : suffixes_(suffixes) {}
  std::array<const Inboxes*, N> get(const std::string& channel, Mailboxes& mailboxes) const {
    for (const Entry& e : cache_)
      if (e.mailboxes == &mailboxes && e.channel == channel) return e.inboxes;
    Entry e{&mailboxes, channel, {}};
    for (size_t i = 0; i < N; ++i) e.inboxes[i] = &mailboxes.channel(channel + "." + suffixes_[i]);
    cache_.push_back(e);
    return e.inboxes;
  }

private:
  struct Entry {
    const Mailboxes* mailboxes;
    std::string channel;
    std::array<const Inboxes*, N> inboxes;
  };
  std::array<const char*, N> suffixes_;
  mutable std::vector<Entry> cache_;
};

std::unique_ptr<CollectiveAlgorithm> make_ring();
std::unique_ptr<CollectiveAlgorithm> make_tree();
std::unique_ptr<CollectiveAlgorithm> make_auto();
std::unique_ptr<CollectiveAlgorithm> make_hierarchical();
std::unique_ptr<CollectiveAlgorithm> make_pat();
std::unique_ptr<CollectiveAlgorithm> make_pairwise();
std::unique_ptr<CollectiveAlgorithm> make_direct();
/// DeepEP's two-hop all-to-all; without a model (experts 0) each token goes once per expert.
std::unique_ptr<CollectiveAlgorithm> make_deepep();

} // namespace trainsim::sim::detail
