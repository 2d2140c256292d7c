// Shortest-path (fewest hops) routing for graphs without known structure, e.g. imported ones.
// No all-pairs table: BFS distances from a source are computed the first time it is asked
// about (O(V + E)) and kept in an LRU cache bounded in bytes. A query on a cached source walks
// back from the destination, each step to a neighbour one hop closer to the source, the flow
// hash choosing among several (ECMP over all shortest paths): O(sum of the degrees along the
// path). Deterministic: the same pair always takes the same path. Failed links
// (Topology::fail_links) are not there: the trees and the walks step over them.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <unordered_map>

#include "topologies/topology.hpp"

namespace trainsim::topo {

class ShortestPathRouter final : public Router {
public:
  /// `cache_bytes`: memory for cached trees (4 bytes per vertex each); at least one is kept.
  /// `gpus_forward`: whether a path may pass through a GPU (a torus's GPUs forward; on a
  /// switched fabric a GPU is only ever an end).
  explicit ShortestPathRouter(size_t cache_bytes, bool gpus_forward = true)
      : cache_bytes_(cache_bytes), gpus_forward_(gpus_forward) {}

  void route(const Topology& topology, int src, int dst, std::vector<Hop>& out) const override;

  /// BFS runs so far (cache misses), for tests and reports.
  [[nodiscard]] long trees_built() const { return trees_built_; }

private:
  using Tree = std::vector<std::int32_t>; ///< per vertex: hops from the source, -1 if unreachable
  const Tree& tree(const Topology& topology, int src) const;

  size_t cache_bytes_;
  bool gpus_forward_;
  mutable std::mutex mutex_; // route() is const and may be called from several threads
  mutable std::list<std::pair<int, Tree>> lru_; // most recently used first
  mutable std::unordered_map<int, std::list<std::pair<int, Tree>>::iterator> by_source_;
  mutable long trees_built_ = 0;
};

/// Hop counts from `from` to every vertex (-1 when unreachable): one BFS.
std::vector<int> hop_distances(const Graph& graph, Vertex from);
/// The same over the topology's links that have not failed, through GPUs other than `from`
/// only where `gpus_forward`.
std::vector<int> hop_distances(const Topology& topology, Vertex from, bool gpus_forward);

} // namespace trainsim::topo
