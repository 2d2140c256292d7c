#include "topologies/group_paths.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

namespace trainsim::topo {

namespace {

// What a route costs: its latency, its slowest link's bandwidth and tier.
PairCost cost_of(const Topology& t, const std::vector<Hop>& hops) {
  PairCost c{Seconds(0), BytesPerSecond(std::numeric_limits<double>::infinity()), "none"};
  for (Hop h : hops) {
    const LinkProps& link = t.link(h.link);
    c.latency += link.latency;
    if (link.bandwidth < c.bandwidth) c.bandwidth = link.bandwidth, c.tier = to_string(link.tier);
  }
  return c;
}

} // namespace

PairCost path_cost(const Topology& t, int src, int dst) {
  std::vector<Hop> hops;
  t.route(src, dst, hops);
  return cost_of(t, hops);
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

// The directed channels of hops [from, to).
std::vector<int> channels(const std::vector<Hop>& hops, size_t from, size_t to) {
  std::vector<int> out;
  for (size_t h = from; h < to; ++h) out.push_back(hops[h].channel());
  return out;
}

// Sets `path` on first sight and checks it against later ones.
bool same_path(std::vector<int>& path, std::vector<int> seen) {
  if (!path.empty()) return path == seen;
  path = std::move(seen);
  return true;
}

} // namespace

bool behind_one_switch(const GroupSpan& g, const Topology& t) {
  if (g.size < 2) return false;
  auto p = static_cast<size_t>(g.size);
  std::vector<std::vector<int>> up(p), down(p);
  std::optional<Vertex> middle;
  std::optional<PairCost> first;
  std::vector<Hop> hops;
  for (size_t i = 0; i < p; ++i)
    for (size_t j = 0; j < p; ++j) {
      if (i == j) continue;
      hops.clear();
      t.route(g.member(static_cast<int>(i)), g.member(static_cast<int>(j)), hops);
      size_t half = hops.size() / 2;
      if (hops.empty() || hops.size() % 2 != 0) return false;
      Vertex via = shared_vertex(t, hops[half - 1], hops[half]);
      if (t.graph()[via].kind == VertexKind::gpu || (middle && *middle != via)) return false;
      middle = via;
      PairCost cost = cost_of(t, hops);
      if (!first) first = cost;
      if (cost.bandwidth != first->bandwidth || cost.latency != first->latency) return false;
      if (!same_path(up[i], channels(hops, 0, half)) ||
          !same_path(down[j], channels(hops, half, hops.size())))
        return false;
    }
  std::vector<int> all;
  for (size_t i = 0; i < p; ++i) {
    all.insert(all.end(), up[i].begin(), up[i].end());
    all.insert(all.end(), down[i].begin(), down[i].end());
  }
  std::sort(all.begin(), all.end());
  return std::adjacent_find(all.begin(), all.end()) == all.end();
}

} // namespace trainsim::topo
