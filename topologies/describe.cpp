#include "topologies/describe.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

#include <boost/graph/push_relabel_max_flow.hpp>

#include "topologies/shortest_path.hpp"

namespace trainsim::topo {
namespace {

using FlowTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<
        boost::edge_capacity_t, double,
        boost::property<boost::edge_residual_capacity_t, double,
                        boost::property<boost::edge_reverse_t, FlowTraits::edge_descriptor>>>>;

// One directed arc with capacity `capacity` and its zero-capacity reverse, as max-flow wants.
void add_arc(FlowGraph& f, size_t from, size_t to, double capacity) {
  auto forward = boost::add_edge(from, to, f).first;
  auto backward = boost::add_edge(to, from, f).first;
  boost::put(boost::edge_capacity, f, forward, capacity);
  boost::put(boost::edge_capacity, f, backward, 0.0);
  boost::put(boost::edge_reverse, f, forward, backward);
  boost::put(boost::edge_reverse, f, backward, forward);
}

void count_vertices(const Topology& t, Description& d) {
  const Graph& g = t.graph();
  for (auto v : boost::make_iterator_range(boost::vertices(g))) {
    const auto& p = g[v];
    if (p.kind == VertexKind::nvswitch) ++d.nvswitches;
    if (p.kind == VertexKind::nic) ++d.nics;
    if (p.kind != VertexKind::net_switch) continue;
    if (d.switches_per_level.size() <= static_cast<size_t>(p.level))
      d.switches_per_level.resize(p.level + 1);
    ++d.switches_per_level[static_cast<size_t>(p.level)];
  }
}

void count_links(const Topology& t, Description& d) {
  std::vector<TierStats> by_tier(static_cast<size_t>(Tier::global) + 1);
  for (int id = 0; id < t.link_count(); ++id) {
    const LinkProps& l = t.link(id);
    TierStats& s = by_tier[static_cast<size_t>(l.tier)];
    s.tier = l.tier;
    s.slowest = s.links == 0 ? l.bandwidth : std::min(s.slowest, l.bandwidth);
    s.fastest = std::max(s.fastest, l.bandwidth);
    s.capacity += l.bandwidth;
    ++s.links;
  }
  for (const auto& s : by_tier)
    if (s.links > 0) d.tiers.push_back(s);
  d.links = t.link_count();
}

// Shortest-path routing follows BFS distances, so the routed diameter is the largest GPU-to-GPU
// BFS distance. Exact (one BFS per GPU) up to ~2e8 steps; beyond, a double sweep gives a bound.
void measure_diameter(const Topology& t, Description& d) {
  const Graph& g = t.graph();
  double work = static_cast<double>(t.gpu_count()) *
                static_cast<double>(boost::num_vertices(g) + boost::num_edges(g));
  d.diameter_exact = work <= 2e8;
  auto farthest_gpu = [&](int from) {
    auto distance = hop_distances(g, t.gpu_vertex(from));
    int best = from;
    for (int r = 0; r < t.gpu_count(); ++r)
      if (distance[t.gpu_vertex(r)] > distance[t.gpu_vertex(best)]) best = r;
    d.diameter = std::max(d.diameter, distance[t.gpu_vertex(best)]);
    return best;
  };
  if (!d.diameter_exact) return (void)farthest_gpu(farthest_gpu(0));
  for (int r = 0; r < t.gpu_count(); ++r) (void)farthest_gpu(r);
}

// The worst switch's ratio of bandwidth down (NICs, GPUs, lower switches) to up (higher switches).
double measure_oversubscription(const Topology& t) {
  const Graph& g = t.graph();
  double worst = 1.0;
  for (auto v : boost::make_iterator_range(boost::vertices(g))) {
    if (g[v].kind != VertexKind::net_switch) continue;
    double down = 0, up = 0;
    for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
      const auto& w = g[boost::target(e, g)];
      bool is_switch = w.kind == VertexKind::net_switch;
      if (is_switch && w.level > g[v].level)
        up += g[e].bandwidth.value();
      else if (!is_switch || w.level < g[v].level)
        down += g[e].bandwidth.value(); // same level: neither
    }
    if (up > 0 && down > 0) worst = std::max(worst, down / up);
  }
  return worst;
}

} // namespace

BytesPerSecond rank_halves_cut(const Topology& t) {
  const Graph& g = t.graph();
  size_t n = boost::num_vertices(g);
  FlowGraph f(n + 2);
  size_t source = n, sink = n + 1;
  for (int id = 0; id < t.link_count(); ++id) {
    auto [a, b] = t.link_ends(id);
    add_arc(f, a, b, t.link(id).bandwidth.value());
    add_arc(f, b, a, t.link(id).bandwidth.value());
  }
  double unlimited = 1e300;
  int half = t.gpu_count() / 2;
  for (int r = 0; r < 2 * half; ++r)
    r < half ? add_arc(f, source, t.gpu_vertex(r), unlimited)
             : add_arc(f, t.gpu_vertex(r), sink, unlimited);
  return BytesPerSecond(boost::push_relabel_max_flow(f, source, sink));
}

Description summarize(const Topology& t) {
  Description d;
  d.gpus = t.gpu_count();
  d.gpus_per_node = t.gpus_per_node();
  d.nodes = d.gpus / d.gpus_per_node;
  count_vertices(t, d);
  count_links(t, d);
  if (const auto& facts = t.facts()) {
    d.bisection = facts->bisection;
    d.diameter = facts->diameter;
    d.oversubscription = facts->oversubscription;
    d.modelled_as = facts->modelled_as;
    return d;
  }
  d.measured = true;
  d.bisection = rank_halves_cut(t);
  measure_diameter(t, d);
  d.oversubscription = measure_oversubscription(t);
  return d;
}

void describe(const Topology& t, std::ostream& out) {
  Description d = summarize(t);
  static const char* const level_names[] = {"router", "leaf", "spine", "core"};
  out << "gpus: " << d.gpus << " (" << d.nodes << (d.nodes == 1 ? " node" : " nodes") << " x "
      << d.gpus_per_node << " per NVLink domain)\n";
  out << "nvswitches: " << d.nvswitches << "\nnics: " << d.nics << "\nswitches:";
  bool any = false;
  for (size_t level = 0; level < d.switches_per_level.size(); ++level) {
    if (d.switches_per_level[level] == 0) continue;
    out << (any ? ", " : " ") << d.switches_per_level[level] << " "
        << (level < 4 ? level_names[level] : ("level-" + std::to_string(level)).c_str());
    any = true;
  }
  out << (any ? "\n" : " 0\n") << "links: " << d.links << "\n";
  for (const auto& s : d.tiers) {
    out << "  " << to_string(s.tier) << ": " << s.links << " x "
        << (s.slowest == s.fastest ? format(s.slowest)
                                   : format(s.slowest) + " to " + format(s.fastest))
        << " (total " << format(s.capacity) << " per direction)\n";
  }
  const char* how = d.measured ? " (measured: max-flow between rank halves)" : "";
  out << "bisection bandwidth: " << format(d.bisection) << " per direction" << how << "\n";
  out << "diameter: " << (d.diameter_exact ? "" : ">= ") << d.diameter << " hops GPU to GPU\n";
  out << "oversubscription: " << d.oversubscription << ":1\n";
  if (!d.modelled_as.empty()) out << "modelled as: " << d.modelled_as << "\n";
}

} // namespace trainsim::topo
