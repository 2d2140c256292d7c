#include "topologies/shortest_path.hpp"

#include <algorithm>
#include <deque>

#include "models/check.hpp"
#include "topologies/build.hpp"
#include "topologies/hash.hpp"

namespace trainsim::topo {
namespace {

// The working links from `v` one hop closer to the source, i.e. to a neighbour at
// distance - 1 that the search went on from (not a GPU other than the source, where GPUs do
// not forward: one can be as close without leading anywhere).
template <class Visit>
void for_each_step_back(const Topology& t, const std::vector<std::int32_t>& distance, Vertex v,
                        bool gpus_forward, Visit visit) {
  const Graph& g = t.graph();
  for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
    Vertex u = boost::target(e, g);
    bool relays = gpus_forward || distance[u] == 0 || g[u].kind != VertexKind::gpu;
    if (distance[u] == distance[v] - 1 && relays && !t.link_failed(g[e].id)) visit(u, g[e].id);
  }
}

template <class Usable>
std::vector<int> bfs(const Graph& g, Vertex from, Usable usable, bool gpus_forward = true) {
  std::vector<int> distance(boost::num_vertices(g), -1);
  std::deque<Vertex> queue{from};
  distance[from] = 0;
  while (!queue.empty()) {
    Vertex v = queue.front();
    queue.pop_front();
    if (!gpus_forward && v != from && g[v].kind == VertexKind::gpu) continue;
    for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
      Vertex w = boost::target(e, g);
      if (distance[w] < 0 && usable(g[e].id)) distance[w] = distance[v] + 1, queue.push_back(w);
    }
  }
  return distance;
}

// ECMP among the links back towards the source: the `h mod count`-th of them.
std::pair<Vertex, int> pick_step_back(const Topology& t, const std::vector<std::int32_t>& distance,
                                      Vertex v, bool gpus_forward, std::uint64_t h) {
  int count = 0;
  for_each_step_back(t, distance, v, gpus_forward, [&](Vertex, int) { ++count; });
  TRAINSIM_CHECK(count > 0, "check_connected() and Topology::cut_pair() keep every GPU reachable");
  auto pick = static_cast<int>(h % static_cast<unsigned>(count));
  std::pair<Vertex, int> chosen{v, -1};
  for_each_step_back(t, distance, v, gpus_forward, [&](Vertex u, int link) {
    if (pick-- == 0) chosen = {u, link};
  });
  return chosen;
}

} // namespace

std::vector<int> hop_distances(const Graph& g, Vertex from) {
  return bfs(g, from, [](int) { return true; });
}

std::vector<int> hop_distances(const Topology& t, Vertex from, bool gpus_forward) {
  return bfs(t.graph(), from, [&](int link) { return !t.link_failed(link); }, gpus_forward);
}

const ShortestPathRouter::Tree& ShortestPathRouter::tree(const Topology& t, int src) const {
  auto it = by_source_.find(src);
  if (it != by_source_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }
  size_t tree_bytes = sizeof(std::int32_t) * boost::num_vertices(t.graph());
  size_t capacity = std::max<size_t>(1, cache_bytes_ / std::max<size_t>(1, tree_bytes));
  while (lru_.size() >= capacity) {
    by_source_.erase(lru_.back().first);
    lru_.pop_back();
  }
  auto distance = hop_distances(t, t.gpu_vertex(src), gpus_forward_);
  lru_.emplace_front(src, Tree(distance.begin(), distance.end()));
  ++trees_built_;
  by_source_[src] = lru_.begin();
  return lru_.front().second;
}

// Walks back from the destination, each step to a neighbour one hop closer to the source;
// where several are (equal-cost paths), the flow hash picks one.
void ShortestPathRouter::route(const Topology& t, int src, int dst, std::vector<Hop>& out) const {
  std::lock_guard lock(mutex_);
  const Tree& distance = tree(t, src);
  size_t first = out.size();
  Vertex root = t.gpu_vertex(src);
  std::uint64_t h = flow_hash(src, dst);
  for (Vertex v = t.gpu_vertex(dst); v != root;
       h = flow_hash(static_cast<int>(h >> 32), static_cast<int>(h))) {
    auto [prev, link] = pick_step_back(t, distance, v, gpus_forward_, h);
    out.push_back(hop(link, prev, v));
    v = prev;
  }
  std::reverse(out.begin() + static_cast<long>(first), out.end());
}

} // namespace trainsim::topo
