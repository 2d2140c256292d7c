#include "topologies/dragonfly.hpp"

#include <algorithm>
#include <cmath>

#include "topologies/fields.hpp"
#include "topologies/hash.hpp"

namespace trainsim::topo {
namespace {

struct DragonflyLayout {
  NodeLayout nodes;
  int gpus_per_node = 1;
  int nodes_per_router = 1;
  int groups = 1, routers = 1, global_links = 0;
  int parallel = 0; ///< global links between each pair of groups
  Vertex first_router = 0;
  int first_nic_link = 0, first_local_link = 0;
  std::vector<int> global_link; ///< per (group, other group's relative index, copy)

  [[nodiscard]] int router_of(int rank) const { return rank / gpus_per_node / nodes_per_router; }
  [[nodiscard]] int group_of(int router) const { return router / routers; }
  /// Index of group `to` among the groups other than `from`.
  [[nodiscard]] static int relative(int from, int to) { return to < from ? to : to - 1; }
  /// The router of `group` that owns copy `copy` of its global links towards `other`.
  [[nodiscard]] int gateway(int group, int other, int copy) const {
    return group * routers + (relative(group, other) * parallel + copy) / global_links;
  }
  [[nodiscard]] int local_link(int a, int b) const {
    int group = group_of(a), x = std::min(a, b) % routers, y = std::max(a, b) % routers;
    int pair = x * routers - x * (x + 1) / 2 + (y - x - 1);
    return first_local_link + group * (routers * (routers - 1) / 2) + pair;
  }
  [[nodiscard]] int global_id(int group, int other, int copy) const {
    return global_link[static_cast<size_t>(
        (group * (groups - 1) + relative(group, other)) * parallel + copy)];
  }
};

class DragonflyRouter final : public Router {
public:
  explicit DragonflyRouter(DragonflyLayout layout) : l_(std::move(layout)) {}

  void route(const Topology&, int src, int dst, std::vector<Hop>& out) const override {
    if (src / l_.gpus_per_node == dst / l_.gpus_per_node)
      return route_in_node(l_.nodes, l_.gpus_per_node, src, dst, out);
    int rs = l_.router_of(src), rd = l_.router_of(dst);
    route_up(l_.nodes, src, l_.first_nic_link + src, router(rs), out);
    int gs = l_.group_of(rs), gd = l_.group_of(rd);
    if (gs == gd)
      local(rs, rd, out);
    else
      across(rs, rd, gs, gd,
             static_cast<int>(flow_hash(src, dst) % static_cast<unsigned>(l_.parallel)), out);
    route_down(l_.nodes, dst, l_.first_nic_link + dst, router(rd), out);
  }

private:
  void across(int rs, int rd, int gs, int gd, int copy, std::vector<Hop>& out) const {
    int out_gw = l_.gateway(gs, gd, copy), in_gw = l_.gateway(gd, gs, copy);
    local(rs, out_gw, out);
    out.push_back(hop(l_.global_id(gs, gd, copy), router(out_gw), router(in_gw)));
    local(in_gw, rd, out);
  }
  void local(int a, int b, std::vector<Hop>& out) const {
    if (a != b) out.push_back(hop(l_.local_link(a, b), router(a), router(b)));
  }
  [[nodiscard]] Vertex router(int r) const { return l_.first_router + static_cast<Vertex>(r); }

  DragonflyLayout l_;
};

void add_global_links(Graph& g, const DragonflyParams& p, DragonflyLayout& l) {
  l.global_link.assign(static_cast<size_t>(l.groups * (l.groups - 1) * l.parallel), -1);
  for (int i = 0; i < l.groups; ++i)
    for (int j = i + 1; j < l.groups; ++j)
      for (int c = 0; c < l.parallel; ++c) {
        int id = add_link(g, l.first_router + static_cast<Vertex>(l.gateway(i, j, c)),
                          l.first_router + static_cast<Vertex>(l.gateway(j, i, c)),
                          p.global_bandwidth, p.global_latency, Tier::global);
        l.global_link[static_cast<size_t>(
            (i * (l.groups - 1) + DragonflyLayout::relative(i, j)) * l.parallel + c)] = id;
        l.global_link[static_cast<size_t>(
            (j * (l.groups - 1) + DragonflyLayout::relative(j, i)) * l.parallel + c)] = id;
      }
}

void add_routers(Graph& g, const DragonflyParams& p, DragonflyLayout& l) {
  int routers = l.groups * l.routers;
  // Level 0: a dragonfly router is no tier of a tree (it is named "switchN", not "leafN").
  l.first_router = add_vertices(g, VertexKind::net_switch, 0, routers);
  l.first_nic_link = static_cast<int>(boost::num_edges(g));
  for (int r = 0; r < l.nodes.gpus; ++r)
    add_link(g, l.nodes.first_nic + static_cast<Vertex>(r),
             l.first_router + static_cast<Vertex>(l.router_of(r)), p.node.nic_bandwidth,
             p.node.network_latency, Tier::leaf);
  l.first_local_link = static_cast<int>(boost::num_edges(g));
  for (int grp = 0; grp < l.groups; ++grp)
    for (int x = 0; x < l.routers; ++x)
      for (int y = x + 1; y < l.routers; ++y)
        add_link(g, l.first_router + static_cast<Vertex>(grp * l.routers + x),
                 l.first_router + static_cast<Vertex>(grp * l.routers + y), p.node.nic_bandwidth,
                 p.node.network_latency, Tier::spine);
  add_global_links(g, p, l);
}

// Bisection: the smallest per-direction capacity of the half-the-NICs cut, the cut between
// two halves of the groups (global links), or, in one group, between two halves of its routers.
FabricFacts facts_of(const DragonflyParams& p, const DragonflyLayout& l) {
  FabricFacts f;
  double half = std::floor(l.nodes.gpus / 2.0);
  if (l.nodes.nodes == 1) return FabricFacts{p.node.nvlink_bandwidth * half, 2, 1.0, ""};
  double bisection = half * std::min(p.node.nic_bandwidth, p.node.pcie_bandwidth).value();
  double ga = std::floor(l.groups / 2.0), ra = std::floor(l.routers / 2.0);
  if (l.groups > 1)
    bisection = std::min(bisection, ga * (l.groups - ga) * l.parallel * p.global_bandwidth.value());
  else if (l.routers > 1)
    bisection = std::min(bisection, ra * (l.routers - ra) * p.node.nic_bandwidth.value());
  f.bisection = BytesPerSecond(bisection);
  int routers = l.groups * l.routers;
  f.diameter = routers == 1 ? 4 : l.groups == 1 ? 5 : l.routers == 1 ? 5 : 7;
  return f;
}

const std::vector<Field<DragonflyParams>>& fields() {
  using P = DragonflyParams;
  static const std::vector<Field<P>> all = [] {
    std::vector<Field<P>> f;
    add_node_fields<NodeParams>(f, [](const char* key, Rule rule, auto member) {
      return field(key, rule, &P::node, member);
    });
    f.insert(f.end(), {field("groups", Rule::positive, &P::groups),
                       field("routers_per_group", Rule::positive, &P::routers_per_group),
                       field("global_links", Rule::positive, &P::global_links),
                       field("nodes_per_router", Rule::positive, &P::nodes_per_router),
                       field("global_bandwidth", Rule::positive, &P::global_bandwidth),
                       field("global_latency", Rule::not_negative, &P::global_latency)});
    return f;
  }();
  return all;
}

// The rules across keys, after each key's own (fields()).
void check(const Params& context, const DragonflyParams& p) {
  check_fields(context, fields(), p); // a struct made in code was not checked while read
  check_gpu_count(context, "groups",
                  static_cast<double>(p.groups) * p.routers_per_group * p.nodes_per_router *
                      p.node.gpus_per_node);
  double a = p.routers_per_group, routers = a * p.groups;
  check_link_count(context, "routers_per_group",
                   routers * (a - 1) / 2 + routers * p.global_links / 2);
  int ports = p.routers_per_group * p.global_links;
  if (p.groups > 1 && ports % (p.groups - 1) != 0)
    context.fail("groups", "groups - 1 must divide routers_per_group x global_links = " +
                               std::to_string(ports) +
                               " (every pair of groups gets the same number of global links)");
}

} // namespace

DragonflyParams parse_dragonfly(const Params& section) {
  DragonflyParams p = read_fields(section, fields(), DragonflyParams{});
  check(section, p);
  return p;
}

std::vector<TopologySetting> dragonfly_settings(const DragonflyParams& p) {
  return settings_of(fields(), p);
}

TopologySize dragonfly_size(const DragonflyParams& p) {
  check(code_context("DragonflyParams"), p);
  double nodes = static_cast<double>(p.groups) * p.routers_per_group * p.nodes_per_router;
  double gpus = nodes * p.node.gpus_per_node, a = p.routers_per_group, routers = a * p.groups;
  double parallel = p.groups > 1 ? a * p.global_links / (p.groups - 1) : 0.0;
  double pairs = static_cast<double>(p.groups) * (p.groups - 1) / 2;
  // per GPU an NVLink, a host and a NIC link; a clique of local links per group; global links per
  // pair of groups
  return {gpus, 2 * gpus + nodes + routers,
          3 * gpus + p.groups * a * (a - 1) / 2 + pairs * parallel};
}

Topology build_dragonfly(const DragonflyParams& p) {
  check(code_context("DragonflyParams"), p);
  DragonflyLayout l;
  l.gpus_per_node = p.node.gpus_per_node;
  l.nodes_per_router = p.nodes_per_router;
  l.groups = p.groups;
  l.routers = p.routers_per_group;
  l.global_links = p.global_links;
  l.parallel = p.groups > 1 ? p.routers_per_group * p.global_links / (p.groups - 1) : 0;
  auto g = std::make_unique<Graph>();
  l.nodes = add_nodes(*g, p.node, p.groups * p.routers_per_group * p.nodes_per_router);
  add_routers(*g, p, l);
  FabricFacts facts = facts_of(p, l);
  return Topology(std::move(g), std::make_unique<DragonflyRouter>(std::move(l)),
                  p.node.gpus_per_node, facts);
}

} // namespace trainsim::topo
