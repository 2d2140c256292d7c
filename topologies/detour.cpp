#include "topologies/detour.hpp"

#include <algorithm>
#include <deque>

namespace trainsim::topo {
namespace {

// Connected pieces of the fabric without its GPUs, over working links: by vertex, its piece
// (-1 for GPUs).
std::vector<int> network_pieces(const Topology& t) {
  const Graph& g = t.graph();
  std::vector<int> piece(boost::num_vertices(g), -1);
  int pieces = 0;
  for (auto start : boost::make_iterator_range(boost::vertices(g))) {
    if (g[start].kind == VertexKind::gpu || piece[start] >= 0) continue;
    std::deque<Vertex> queue{start};
    piece[start] = pieces;
    while (!queue.empty()) {
      Vertex v = queue.front();
      queue.pop_front();
      for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
        Vertex w = boost::target(e, g);
        if (g[w].kind == VertexKind::gpu || piece[w] >= 0 || t.link_failed(g[e].id)) continue;
        piece[w] = pieces;
        queue.push_back(w);
      }
    }
    ++pieces;
  }
  return piece;
}

// The pieces a GPU's working links reach, sorted.
std::vector<int> touched(const Topology& t, const std::vector<int>& piece, int rank) {
  const Graph& g = t.graph();
  std::vector<int> out;
  for (auto e : boost::make_iterator_range(boost::out_edges(t.gpu_vertex(rank), g))) {
    int p = piece[boost::target(e, g)];
    if (p >= 0 && !t.link_failed(g[e].id)) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool share(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return !both.empty();
}

} // namespace

void DetourRouter::route(const Topology& t, int src, int dst, std::vector<Hop>& out) const {
  size_t first = out.size();
  healthy_->route(t, src, dst, out);
  bool broken = std::any_of(out.begin() + static_cast<long>(first), out.end(),
                            [&](Hop h) { return t.link_failed(h.link); });
  if (!broken) return;
  out.resize(first);
  detour_.route(t, src, dst, out);
}

std::optional<std::pair<int, int>> unreachable_from_first(const Topology& t) {
  std::vector<int> distance = hop_distances(t, t.gpu_vertex(0), true);
  for (int rank = 1; rank < t.gpu_count(); ++rank)
    if (distance[t.gpu_vertex(rank)] < 0) return std::pair{0, rank};
  return std::nullopt;
}

// A pair of GPUs is joined when both touch one piece. Most GPUs touch the piece that most
// touch (the network); only the others are checked against every GPU.
std::optional<std::pair<int, int>> unjoined_pair(const Topology& t) {
  if (t.gpu_count() < 2) return std::nullopt;
  std::vector<int> piece = network_pieces(t);
  int pieces = *std::max_element(piece.begin(), piece.end()) + 1;
  if (pieces == 0) return std::pair{0, 1}; // nothing but GPUs, and they do not forward
  std::vector<std::vector<int>> sets;
  std::vector<int> count(static_cast<size_t>(pieces));
  for (int rank = 0; rank < t.gpu_count(); ++rank) {
    sets.push_back(touched(t, piece, rank));
    for (int p : sets.back()) ++count[static_cast<size_t>(p)];
  }
  auto main = static_cast<int>(std::max_element(count.begin(), count.end()) - count.begin());
  for (int a = 0; a < t.gpu_count(); ++a) {
    const std::vector<int>& mine = sets[static_cast<size_t>(a)];
    if (std::binary_search(mine.begin(), mine.end(), main)) continue;
    for (int b = 0; b < t.gpu_count(); ++b)
      if (b != a && !share(mine, sets[static_cast<size_t>(b)])) return std::pair{a, b};
  }
  return std::nullopt;
}

} // namespace trainsim::topo
