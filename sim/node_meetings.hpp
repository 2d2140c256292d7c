// Partial rail bundling (sim/rail_bundle.hpp): a node's leader GPU and its own-rail GPUs each
// run the node's TP collectives at their time alone on its NVLink, which every member's ring
// needs. So each such collective starts when the last of them arrives: the k-th of each actor
// meets the others' k-th (a rendezvous keyed by node and k, since a stream's worker may run a
// background one while its actor runs a blocking one). Internal to sim/.
#pragma once

#include <cstdint>
#include <unordered_map>

#include <simgrid/s4u/Barrier.hpp>

namespace trainsim::sim {

class NodeMeetings {
public:
  /// `actors`: how many of a node's actors take part in each meeting.
  explicit NodeMeetings(int actors) : actors_(actors) {}
  /// Returns when all of `node`'s actors have called meet(node, k), at the last one's time.
  void meet(int node, std::int64_t k);

private:
  struct Slot {
    int arrived = 0;
    simgrid::s4u::BarrierPtr barrier;
  };
  int actors_;
  std::unordered_map<std::uint64_t, Slot> slots_;
};

} // namespace trainsim::sim
