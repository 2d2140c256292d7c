#include "topologies/shortest_path.hpp"

#include <algorithm>
#include <cassert>
#include <deque>

#include "topologies/build.hpp"

namespace trainsim::topo {
namespace {

// BFS from `root`, recording the link each vertex was first reached by.
std::vector<std::int32_t> bfs_tree(const Graph& g, Vertex root) {
  std::vector<std::int32_t> via(boost::num_vertices(g), -1);
  std::vector<char> seen(boost::num_vertices(g), 0);
  std::deque<Vertex> queue{root};
  seen[root] = 1;
  while (!queue.empty()) {
    Vertex v = queue.front();
    queue.pop_front();
    for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
      Vertex w = boost::target(e, g);
      if (seen[w]) continue;
      seen[w] = 1;
      via[w] = g[e].id;
      queue.push_back(w);
    }
  }
  return via;
}

} // namespace

std::vector<int> hop_distances(const Graph& g, Vertex from) {
  std::vector<int> distance(boost::num_vertices(g), -1);
  std::deque<Vertex> queue{from};
  distance[from] = 0;
  while (!queue.empty()) {
    Vertex v = queue.front();
    queue.pop_front();
    for (auto w : boost::make_iterator_range(boost::adjacent_vertices(v, g)))
      if (distance[w] < 0) distance[w] = distance[v] + 1, queue.push_back(w);
  }
  return distance;
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
  lru_.emplace_front(src, bfs_tree(t.graph(), t.gpu_vertex(src)));
  ++trees_built_;
  by_source_[src] = lru_.begin();
  return lru_.front().second;
}

void ShortestPathRouter::route(const Topology& t, int src, int dst, std::vector<Hop>& out) const {
  std::lock_guard lock(mutex_);
  const Tree& via = tree(t, src);
  size_t first = out.size();
  Vertex root = t.gpu_vertex(src);
  for (Vertex v = t.gpu_vertex(dst); v != root;) {
    assert(via[v] >= 0 && "check_connected() guarantees every GPU is reachable");
    auto [a, b] = t.link_ends(via[v]);
    Vertex prev = a == v ? b : a;
    out.push_back(hop(via[v], prev, v));
    v = prev;
  }
  std::reverse(out.begin() + static_cast<long>(first), out.end());
}

} // namespace trainsim::topo
