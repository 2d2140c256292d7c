#include "topologies/group_paths.hpp"

#include <limits>
#include <optional>
#include <vector>

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

namespace {

// The vertex two consecutive links share.
Vertex shared_vertex(const Topology& t, Hop a, Hop b) {
  auto [a0, a1] = t.link_ends(a.link);
  auto [b0, b1] = t.link_ends(b.link);
  return a0 == b0 || a0 == b1 ? a0 : a1;
}

} // namespace

bool behind_one_switch(const GroupSpan& g, const Topology& t) {
  if (g.size < 2) return false;
  std::vector<int> up(static_cast<size_t>(g.size), -1), down(static_cast<size_t>(g.size), -1);
  std::optional<Vertex> middle;
  const LinkProps* first = nullptr;
  auto alike = [&](int id) {
    const LinkProps& l = t.link(id);
    if (first == nullptr) first = &l;
    return l.bandwidth == first->bandwidth && l.latency == first->latency;
  };
  auto own = [](int& slot, int link) {
    if (slot == -1) slot = link;
    return slot == link;
  };
  std::vector<Hop> hops;
  for (int i = 0; i < g.size; ++i)
    for (int j = 0; j < g.size; ++j) {
      if (i == j) continue;
      hops.clear();
      t.route(g.member(i), g.member(j), hops);
      if (hops.size() != 2 || !alike(hops[0].link) || !alike(hops[1].link)) return false;
      Vertex via = shared_vertex(t, hops[0], hops[1]);
      if (t.graph()[via].kind == VertexKind::gpu || (middle && *middle != via)) return false;
      middle = via;
      if (!own(up[static_cast<size_t>(i)], hops[0].link) ||
          !own(down[static_cast<size_t>(j)], hops[1].link))
        return false;
    }
  return true;
}

} // namespace trainsim::topo
