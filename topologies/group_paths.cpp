#include "topologies/group_paths.hpp"

#include <limits>

namespace trainsim::topo {

PairCost path_cost(const Topology& t, int src, int dst) {
  std::vector<Hop> hops;
  t.route(src, dst, hops);
  PairCost c{Seconds(0), BytesPerSecond(std::numeric_limits<double>::infinity()), "none"};
  for (Hop h : hops) {
    const LinkProps& link = t.link(h.link);
    c.latency += link.latency;
    if (link.bandwidth < c.bandwidth) c.bandwidth = link.bandwidth, c.tier = to_string(link.tier);
  }
  return c;
}

PairCosts pair_costs(const Topology& topology) {
  return [&topology](int src, int dst) { return path_cost(topology, src, dst); };
}

} // namespace trainsim::topo
