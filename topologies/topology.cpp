#include "topologies/topology.hpp"

#include <algorithm>
#include <limits>

#include "models/check.hpp"
#include "topologies/detour.hpp"
#include "topologies/shortest_path.hpp"

namespace trainsim::topo {

std::string to_string(Tier tier) {
  switch (tier) {
  case Tier::nvlink:
    return "nvlink";
  case Tier::host:
    return "host";
  case Tier::leaf:
    return "leaf";
  case Tier::spine:
    return "spine";
  case Tier::core:
    return "core";
  case Tier::direct:
    return "direct";
  case Tier::global:
    return "global";
  }
  return "?";
}

std::string to_string(VertexKind kind) {
  switch (kind) {
  case VertexKind::gpu:
    return "gpu";
  case VertexKind::nvswitch:
    return "nvswitch";
  case VertexKind::nic:
    return "nic";
  case VertexKind::net_switch:
    return "switch";
  }
  return "?";
}

Topology::Topology(std::unique_ptr<Graph> graph, std::unique_ptr<Router> router, int gpus_per_node,
                   std::optional<FabricFacts> facts)
    : graph_(std::move(graph)), router_(std::move(router)), gpus_per_node_(gpus_per_node),
      facts_(facts) {
  const Graph& g = *graph_;
  for (auto v : boost::make_iterator_range(boost::vertices(g))) {
    const auto& p = g[v];
    if (p.kind != VertexKind::gpu) continue;
    if (gpus_.size() <= static_cast<size_t>(p.index))
      gpus_.resize(static_cast<size_t>(p.index) + 1);
    gpus_[static_cast<size_t>(p.index)] = v;
  }
  links_.resize(boost::num_edges(g));
  ends_.resize(boost::num_edges(g));
  for (auto e : boost::make_iterator_range(boost::edges(g))) {
    auto id = static_cast<size_t>(g[e].id);
    links_[id] = g[e];
    Vertex a = boost::source(e, g), b = boost::target(e, g);
    ends_[id] = a < b ? std::pair{a, b} : std::pair{b, a};
  }
}

// Boost 1.74's adjacency_list has no move constructor: "moving" a Graph copies it once here.
Topology::Topology(Graph graph, std::unique_ptr<Router> router, int gpus_per_node)
    : Topology(std::make_unique<Graph>(std::move(graph)), std::move(router), gpus_per_node) {}

Topology::Topology(Graph graph, std::unique_ptr<Router> router, int gpus_per_node,
                   FabricFacts facts)
    : Topology(std::make_unique<Graph>(std::move(graph)), std::move(router), gpus_per_node, facts) {
}

std::pair<Vertex, Vertex> Topology::link_ends(int id) const {
  return ends_[static_cast<size_t>(id)];
}

void Topology::degrade_link(int id, double factor, Seconds extra) {
  LinkProps& l = links_[static_cast<size_t>(id)];
  l.bandwidth = l.bandwidth * factor;
  l.latency = l.latency + extra;
  for (auto e : boost::make_iterator_range(boost::edges(*graph_)))
    if ((*graph_)[e].id == id) (*graph_)[e] = l;
}

void Topology::fail_links(const std::vector<int>& ids) {
  if (ids.empty()) return;
  if (failed_.empty()) {
    failed_.assign(links_.size(), false);
    // GPUs relay where the healthy fabric already has them do so: a torus's direct links, an
    // imported graph routed by shortest paths. Elsewhere only switches forward.
    gpus_forward_ = dynamic_cast<const ShortestPathRouter*>(router_.get()) != nullptr ||
                    std::any_of(links_.begin(), links_.end(),
                                [](const LinkProps& l) { return l.tier == Tier::direct; });
    // One tree per GPU the detours leave from, 4 bytes a vertex: 64 MiB holds about 300 of
    // a 16k-GPU fabric's (55k vertices).
    router_ = std::make_unique<DetourRouter>(std::move(router_), size_t{64} << 20, gpus_forward_);
  }
  for (int id : ids) failed_[static_cast<size_t>(id)] = true;
}

std::optional<std::pair<int, int>> Topology::cut_pair() const {
  if (failed_.empty()) return std::nullopt;
  return gpus_forward_ ? unreachable_from_first(*this) : unjoined_pair(*this);
}

Seconds Topology::path_latency(int src, int dst) const {
  std::vector<Hop> hops;
  route(src, dst, hops);
  Seconds total{};
  for (auto h : hops) total += link(h.link).latency;
  return total;
}

BytesPerSecond Topology::path_bandwidth(int src, int dst) const {
  std::vector<Hop> hops;
  route(src, dst, hops);
  BytesPerSecond slowest(std::numeric_limits<double>::infinity());
  for (auto h : hops) slowest = std::min(slowest, link(h.link).bandwidth);
  return slowest;
}

void Topology::set_vertex_names(std::vector<std::string> names) {
  TRAINSIM_CHECK(names.size() == boost::num_vertices(*graph_), "one name per vertex");
  names_ = std::move(names);
}

std::string Topology::vertex_name(Vertex v) const {
  if (!names_.empty()) return names_[v];
  const auto& p = (*graph_)[v];
  if (p.kind != VertexKind::net_switch) return to_string(p.kind) + std::to_string(p.index);
  static const char* const levels[] = {"switch", "leaf", "spine", "core"};
  return std::string(levels[std::clamp(p.level, 0, 3)]) + std::to_string(p.index);
}

std::string Topology::hop_name(Hop hop) const {
  auto [a, b] = link_ends(hop.link);
  if (!hop.forward) std::swap(a, b);
  return vertex_name(a) + "->" + vertex_name(b);
}

} // namespace trainsim::topo
