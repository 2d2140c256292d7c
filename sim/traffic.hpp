// Bytes each rank sent to each peer, counted where the simulator sends them and put on the
// links at the end by routing each (sender, receiver) pair once. SimGrid's link-load plugin
// cannot be used for this: it integrates link usage during each message's latency phase
// too, adding bandwidth x latency per message and link.
#pragma once

#include <utility>
#include <vector>

#include "topologies/topology.hpp"

namespace trainsim::sim {

struct RailBundle;

class Traffic {
public:
  explicit Traffic(int ranks) : sent_(static_cast<size_t>(ranks)) {}
  /// A rank talks to a handful of peers, so a short list per rank beats a hash map.
  void add(int from, int to, double bytes);
  /// Rail bundling: what each node's leader GPU sent, every GPU it stands for (k rails after
  /// it) sent to the peer turned by k (the peer's local index plus k, modulo the rails).
  void mirror_rails(const RailBundle& bundle);
  /// Bytes per link direction (Hop::channel()), each pair's bytes following its route.
  [[nodiscard]] std::vector<double> channel_bytes(const topo::Topology& topology) const;

private:
  std::vector<std::vector<std::pair<int, double>>> sent_;
};

} // namespace trainsim::sim
