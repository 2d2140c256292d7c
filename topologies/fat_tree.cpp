#include "topologies/fat_tree.hpp"

#include <algorithm>
#include <cmath>

#include "topologies/fields.hpp"
#include "topologies/hash.hpp"

namespace trainsim::topo {
namespace {

// Every count and first id of the built Clos, so the router computes vertices and link ids
// arithmetically: a route costs O(hops), with no search and no table.
struct ClosLayout {
  NodeLayout nodes;
  int gpus_per_node = 1;
  bool rail = false;
  /// ecmp: rail or destination (checked: rail mapping, planes divisible by rails), pair, or
  /// spray (the planes built as one, below)
  enum class Routing : std::uint8_t { pair, rail, destination, spray } routing = Routing::pair;
  int down = 1; ///< NIC ports per leaf
  int up = 0;   ///< uplinks per leaf = spines per pod, as built; 0 with a single leaf
  int leaves = 1;
  int pod_leaves = 1; ///< leaves per pod (all leaves with 2 tiers)
  int pods = 1;
  int cores_per_plane = 0; ///< 0 unless 3 tiers with more than one pod
  // Packet spraying's fluid limit: every flow spreads evenly over all the equal-cost paths, so
  // a leaf's up planes act as one link of their summed bandwidth, and so do a pod's spine-core
  // links. Built that way (up = cores_per_plane = 1), with the links' widths kept here.
  double leaf_uplink_width = 1, core_link_width = 1;
  Vertex first_leaf = 0, first_spine = 0, first_core = 0;
  int first_leaf_link = 0, first_spine_link = 0, first_core_link = 0;

  [[nodiscard]] int leaf_of(int rank) const {
    if (!rail) return rank / down;
    int node = rank / gpus_per_node;
    return (node / down) * gpus_per_node + rank % gpus_per_node;
  }
  [[nodiscard]] int pod_of(int leaf) const { return leaf / pod_leaves; }
  [[nodiscard]] int spine(int pod, int plane) const { return pod * up + plane; }
};

// Sprayed, a pod's one spine-core link carries every rail, a link the turn maps onto itself,
// which rail 0 cannot stand for: with more than one pod every GPU runs its own flows.
bool rail_symmetric(const ClosLayout& l) {
  using R = ClosLayout::Routing;
  if (l.routing == R::spray) return l.rail && l.pods == 1;
  return l.routing != R::pair;
}

class ClosRouter final : public Router {
public:
  explicit ClosRouter(ClosLayout layout) : l_(layout) {}

  void route(const Topology&, int src, int dst, std::vector<Hop>& out) const override {
    if (src / l_.gpus_per_node == dst / l_.gpus_per_node)
      return route_in_node(l_.nodes, l_.gpus_per_node, src, dst, out);
    int leaf_s = l_.leaf_of(src), leaf_d = l_.leaf_of(dst);
    up_to_leaf(src, leaf_s, out);
    if (leaf_s != leaf_d) across(leaf_s, leaf_d, choice(src, dst), out);
    down_from_leaf(dst, leaf_d, out);
  }

  [[nodiscard]] bool rail_symmetric() const override { return topo::rail_symmetric(l_); }

  // The orbit of a link under the turn (GPU k to k + 1 in every node, spine and core plane j
  // to j + up / g) is named by its member on rail 0: a GPU's NVLink, PCIe and leaf links by
  // GPU 0's of its node, a rail leaf's uplink by the uplink of the group's rail-0 leaf turned
  // back, and a spine-core link by its plane modulo up / g (the planes a turn moves into one
  // another, which every rail's routes share).
  [[nodiscard]] int rail_link(int link) const override {
    if (!rail_symmetric()) return link;
    int g = l_.gpus_per_node, per_rail = l_.up / g;
    if (link < l_.first_leaf_link) return link - (link / 2) % g * 2; // links 2r and 2r + 1
    if (link < l_.first_spine_link) return link - (link - l_.first_leaf_link) % g;
    if (link < l_.first_core_link) {
      int leaf = (link - l_.first_spine_link) / l_.up, plane = (link - l_.first_spine_link) % l_.up;
      int rail = leaf % g;
      return leaf_link(leaf - rail, (plane - rail * per_rail % l_.up + l_.up) % l_.up);
    }
    int spine = (link - l_.first_core_link) / l_.cores_per_plane;
    int core = (link - l_.first_core_link) % l_.cores_per_plane;
    int plane = spine % l_.up;
    return core_link(spine - plane + plane % per_rail, core);
  }
  // A rail leaf's links (its NICs' and its uplinks) and a GPU's own are its rail's alone.
  [[nodiscard]] int rail_of_link(int link) const override {
    if (!rail_symmetric()) return -1;
    int g = l_.gpus_per_node;
    if (link < l_.first_leaf_link) return link / 2 % g; // links 2r and 2r + 1 of GPU r
    if (link < l_.first_spine_link) return (link - l_.first_leaf_link) % g;
    if (link < l_.first_core_link) return (link - l_.first_spine_link) / l_.up % g;
    return -1;
  }

private:
  // The equal-cost choice of a flow: its spine plane and, across pods, the core in that plane.
  struct Choice {
    int plane = 0;
    std::uint64_t core = 0; ///< reduced modulo the cores per plane
  };
  [[nodiscard]] Choice choice(int src, int dst) const {
    switch (l_.routing) {
    case ClosLayout::Routing::rail:
      return rail_choice(src, dst);
    case ClosLayout::Routing::destination:
      return destination_choice(dst);
    case ClosLayout::Routing::spray:
      return {}; // the one plane and core built
    case ClosLayout::Routing::pair:
      break;
    }
    return pair_choice(src, dst);
  }
  // ECMP over the pair: one pair always takes one path, many pairs spread evenly.
  [[nodiscard]] Choice pair_choice(int src, int dst) const {
    std::uint64_t h = flow_hash(src, dst);
    auto up = static_cast<unsigned>(l_.up);
    return {static_cast<int>(h % up), h / up};
  }
  // Rail-equivariant ECMP: the hash sees the nodes and how many rails apart the GPUs are, and
  // rail k adds k x up / g planes, so turning every node's GPUs one place turns the plane by
  // up / g and keeps the core: the g rails' routes are images of one another.
  [[nodiscard]] Choice rail_choice(int src, int dst) const {
    int g = l_.gpus_per_node;
    int rail = src % g, apart = ((dst % g - rail) % g + g) % g;
    std::uint64_t h = flow_hash(src / g, (dst / g) * g + apart);
    auto up = static_cast<unsigned>(l_.up);
    int plane = static_cast<int>((h % up + static_cast<unsigned>(rail * (l_.up / g))) % up);
    return {plane, h / up};
  }

  // Destination routing: an InfiniBand fabric forwards by destination (LID), whatever the
  // source, and OpenSM's fat-tree engine lays the routes out so that shift patterns are
  // congestion-free (linux-rdma/opensm, doc/current-routing.txt); ours are laid out to the
  // same end. Node n's GPU on rail k is reached through plane (n + k x up / g) mod up: a
  // leaf's nodes are consecutive, so its GPUs, and the destinations of a shift (a ring's
  // step) leaving it, get distinct planes. Across pods, core (n / up) x g + (n mod up) /
  // (up / g) of the plane: distinct for the destinations of a pod's shift that share a
  // spine (its rails' residues and their multiples of up), as many as a plane's cores when
  // the tree is non-blocking. Turning the GPUs one place turns the plane by up / g and keeps
  // the core, as rail ECMP does.
  [[nodiscard]] Choice destination_choice(int dst) const {
    int g = l_.gpus_per_node, node = dst / g, per_rail = l_.up / g;
    int plane = (node + dst % g * per_rail) % l_.up;
    auto core = static_cast<std::uint64_t>(node / l_.up * g + node % l_.up / per_rail);
    return {plane, core};
  }

  void up_to_leaf(int rank, int leaf, std::vector<Hop>& out) const {
    route_up(l_.nodes, rank, l_.first_leaf_link + rank, leaf_vertex(leaf), out);
  }
  void down_from_leaf(int rank, int leaf, std::vector<Hop>& out) const {
    route_down(l_.nodes, rank, l_.first_leaf_link + rank, leaf_vertex(leaf), out);
  }
  void across(int leaf_s, int leaf_d, Choice c, std::vector<Hop>& out) const {
    int plane = c.plane;
    int pod_s = l_.pod_of(leaf_s), pod_d = l_.pod_of(leaf_d);
    int spine_s = l_.spine(pod_s, plane), spine_d = l_.spine(pod_d, plane);
    out.push_back(hop(leaf_link(leaf_s, plane), leaf_vertex(leaf_s), spine_vertex(spine_s)));
    if (pod_s != pod_d) {
      int core = plane * l_.cores_per_plane +
                 static_cast<int>(c.core % static_cast<unsigned>(l_.cores_per_plane));
      Vertex core_v = l_.first_core + static_cast<Vertex>(core);
      out.push_back(hop(core_link(spine_s, core), spine_vertex(spine_s), core_v));
      out.push_back(hop(core_link(spine_d, core), core_v, spine_vertex(spine_d)));
    }
    out.push_back(hop(leaf_link(leaf_d, plane), spine_vertex(spine_d), leaf_vertex(leaf_d)));
  }
  [[nodiscard]] Vertex leaf_vertex(int leaf) const {
    return l_.first_leaf + static_cast<Vertex>(leaf);
  }
  [[nodiscard]] Vertex spine_vertex(int spine) const {
    return l_.first_spine + static_cast<Vertex>(spine);
  }
  [[nodiscard]] int leaf_link(int leaf, int plane) const {
    return l_.first_spine_link + leaf * l_.up + plane;
  }
  [[nodiscard]] int core_link(int spine, int core) const {
    return l_.first_core_link + spine * l_.cores_per_plane + core % l_.cores_per_plane;
  }

  ClosLayout l_;
};

// One declaration per key, in the order they are read (fields.hpp); `nodes` is required
// unless the generator has a default node count.
std::vector<Field<FatTreeParams>> make_fields(bool nodes_required) {
  using P = FatTreeParams;
  std::vector<Field<P>> f{
      field("nodes", nodes_required ? Rule::required : Rule::positive, &P::nodes)};
  add_node_fields<P>(
      f, [](const char* key, Rule rule, auto member) { return field(key, rule, member); });
  f.insert(f.end(),
           {field("leaf_down_ports", Rule::positive, &P::leaf_down_ports),
            field("oversubscription", Rule::positive, &P::oversubscription),
            field("tiers", Rule::any, &P::tiers), field("radix", Rule::not_negative, &P::radix),
            field("ecmp", Rule::any, &P::ecmp)});
  return f;
}

const std::vector<Field<FatTreeParams>>& fields(bool nodes_required) {
  static const std::vector<Field<FatTreeParams>> required = make_fields(true),
                                                 optional = make_fields(false);
  return nodes_required ? required : optional;
}

// The ECMP policies a fat tree may name, each once: how it routes and whether it turns with
// the rails (rail-equivariant ECMP and destination routing turn rail k's planes by
// k x up / g, inside each pod).
struct EcmpPolicy {
  const char* name;
  ClosLayout::Routing routing;
  bool turns_with_rails;
};
constexpr EcmpPolicy kEcmpPolicies[] = {{"pair", ClosLayout::Routing::pair, false},
                                        {"rail", ClosLayout::Routing::rail, true},
                                        {"destination", ClosLayout::Routing::destination, true},
                                        {"spray", ClosLayout::Routing::spray, false}};

const EcmpPolicy* ecmp_policy(const std::string& name) {
  for (const EcmpPolicy& policy : kEcmpPolicies)
    if (name == policy.name) return &policy;
  return nullptr;
}

// A policy that turns with the rails needs them, and the planes and the pods' leaves must
// divide into the g rails.
void check_ecmp(const Params& context, const FatTreeParams& p, int up) {
  const EcmpPolicy* policy = ecmp_policy(p.ecmp);
  if (policy == nullptr) {
    std::vector<std::string> names;
    for (const EcmpPolicy& known : kEcmpPolicies) names.emplace_back(known.name);
    context.fail("ecmp", "must be " + alternatives(names) + did_you_mean(p.ecmp, names));
  }
  if (!policy->turns_with_rails) return;
  if (!p.rail_optimized) context.fail("ecmp", "needs rails: generator rail-optimized or dgx-h100");
  std::string g = std::to_string(p.gpus_per_node);
  if (up % p.gpus_per_node != 0)
    context.fail("ecmp", "needs the " + std::to_string(up) +
                             " uplinks per leaf to be a multiple of gpus_per_node (" + g + ")");
  if (p.tiers == 3 && (p.radix / 2) % p.gpus_per_node != 0)
    context.fail("ecmp", "needs the radix / 2 = " + std::to_string(p.radix / 2) +
                             " leaves per pod to be a multiple of gpus_per_node (" + g + ")");
}

void check_ports(const Params& context, const FatTreeParams& p) {
  check_fields(context, fields(true), p); // a struct made in code was not checked while read
  check_gpu_count(context, "nodes", static_cast<double>(p.nodes) * p.gpus_per_node);
  if (p.tiers != 2 && p.tiers != 3) context.fail("tiers", "must be 2 or 3");
  if (p.leaf_down_ports < p.oversubscription)
    context.fail("oversubscription", "leaves a leaf with no uplink");
  if (p.tiers == 3 && p.radix < 2)
    context.fail("radix", "a 3-tier Clos needs the switch radix (at least 2)");
  int up = static_cast<int>(std::floor(p.leaf_down_ports / p.oversubscription));
  if (p.radix > 0 && p.leaf_down_ports + up > p.radix)
    context.fail("radix", "is smaller than a leaf's " + std::to_string(p.leaf_down_ports) +
                              " down + " + std::to_string(up) + " up ports");
  check_ecmp(context, p, up);
}

// Node vertices (GPU, NIC, NVSwitch) and links (NVLink, host, leaf) as add_nodes and
// add_switches make them, plus the switches and their uplinks.
TopologySize size_of(const FatTreeParams& p, const ClosLayout& l) {
  double gpus = static_cast<double>(p.nodes) * p.gpus_per_node;
  double spines = static_cast<double>(l.pods) * l.up,
         cores = static_cast<double>(l.up) * l.cores_per_plane;
  double links = 3.0 * gpus + static_cast<double>(l.leaves) * l.up + spines * l.cores_per_plane;
  return {gpus, 2.0 * gpus + p.nodes + l.leaves + spines + cores, links};
}

// Sizes every tier after checking `p`; throws, naming `context`, when the switches' radix
// cannot connect them.
ClosLayout plan(const FatTreeParams& p, const Params& context) {
  check_ports(context, p);
  ClosLayout l;
  l.gpus_per_node = p.gpus_per_node;
  l.rail = p.rail_optimized;
  l.down = p.leaf_down_ports;
  int gpus = p.nodes * p.gpus_per_node;
  l.leaves =
      l.rail ? (p.nodes + l.down - 1) / l.down * p.gpus_per_node : (gpus + l.down - 1) / l.down;
  l.up = l.leaves > 1 ? static_cast<int>(std::floor(p.leaf_down_ports / p.oversubscription)) : 0;
  using C = ClosLayout::Routing;
  l.routing = ecmp_policy(p.ecmp)->routing;
  l.pod_leaves = p.tiers == 3 ? std::max(1, p.radix / 2) : l.leaves;
  l.pods = (l.leaves + l.pod_leaves - 1) / l.pod_leaves;
  l.cores_per_plane = l.pods > 1 ? p.radix / 2 : 0;
  if (l.routing == C::spray && l.up > 0) {
    l.leaf_uplink_width = l.up;
    l.core_link_width = static_cast<double>(l.up) * l.cores_per_plane;
    l.up = 1;
    l.cores_per_plane = std::min(l.cores_per_plane, 1);
  }
  if (p.radix > 0 && p.tiers == 2 && l.leaves > p.radix)
    context.fail("nodes", "needs " + std::to_string(l.leaves) + " leaves, more than a radix-" +
                              std::to_string(p.radix) + " spine connects (use tiers: 3)");
  check_link_count(context, "oversubscription", size_of(p, l).links);
  if (p.tiers == 3 && l.pods > p.radix)
    context.fail("nodes", "needs " + std::to_string(l.pods) + " pods, more than a radix-" +
                              std::to_string(p.radix) + " core connects (raise radix)");
  return l;
}

void add_switches(Graph& g, const FatTreeParams& p, ClosLayout& l) {
  int spines = l.pods * l.up;
  l.first_leaf = add_vertices(g, VertexKind::net_switch, 1, l.leaves);
  l.first_spine = add_vertices(g, VertexKind::net_switch, 2, spines);
  l.first_core = add_vertices(g, VertexKind::net_switch, 3, l.up * l.cores_per_plane);
  BytesPerSecond bw = p.nic_bandwidth, uplink = bw * l.leaf_uplink_width,
                 core_link = bw * l.core_link_width;
  Seconds lat = p.network_latency;
  l.first_leaf_link = static_cast<int>(boost::num_edges(g));
  for (int r = 0; r < l.nodes.gpus; ++r)
    add_link(g, l.nodes.first_nic + static_cast<Vertex>(r),
             l.first_leaf + static_cast<Vertex>(l.leaf_of(r)), bw, lat, Tier::leaf);
  l.first_spine_link = static_cast<int>(boost::num_edges(g));
  for (int leaf = 0; leaf < l.leaves; ++leaf)
    for (int j = 0; j < l.up; ++j)
      add_link(g, l.first_leaf + static_cast<Vertex>(leaf),
               l.first_spine + static_cast<Vertex>(l.spine(l.pod_of(leaf), j)), uplink, lat,
               Tier::spine);
  l.first_core_link = static_cast<int>(boost::num_edges(g));
  for (int s = 0; s < spines && l.cores_per_plane > 0; ++s)
    for (int c = 0; c < l.cores_per_plane; ++c)
      add_link(g, l.first_spine + static_cast<Vertex>(s),
               l.first_core + static_cast<Vertex>((s % l.up) * l.cores_per_plane + c), core_link,
               lat, Tier::core);
}

// Bisection: the smallest per-direction capacity among the tier cuts (half the GPUs' NICs,
// half of all leaf uplinks, half of all spine uplinks); see docs/topologies.md.
FabricFacts facts_of(const FatTreeParams& p, const ClosLayout& l) {
  double half = std::floor(l.nodes.gpus / 2.0);
  FabricFacts f;
  if (l.nodes.nodes == 1) {
    f.bisection = p.nvlink_bandwidth * half;
    f.diameter = 2;
    return f;
  }
  double bisection = half * std::min(p.nic_bandwidth, p.pcie_bandwidth).value();
  double link = p.nic_bandwidth.value();
  double up = l.up * l.leaf_uplink_width, core = l.up * l.cores_per_plane * l.core_link_width;
  if (l.leaves > 1) bisection = std::min(bisection, l.leaves * up * link / 2);
  if (l.pods > 1) bisection = std::min(bisection, l.pods * core * link / 2);
  f.bisection = BytesPerSecond(bisection);
  f.diameter = l.leaves == 1 ? 4 : l.pods == 1 ? 6 : 8;
  f.oversubscription = l.leaves > 1 ? l.down / up : 1.0;
  if (l.routing == ClosLayout::Routing::spray && l.leaves > 1) {
    f.modelled_as = "adaptive routing (ecmp: spray): each leaf's " +
                    std::to_string(static_cast<int>(l.leaf_uplink_width)) +
                    " uplinks to its pod's spines as one link of their summed bandwidth";
    if (l.pods > 1)
      f.modelled_as += ", and each pod's " + std::to_string(static_cast<int>(l.core_link_width)) +
                       " spine-core links as one";
    f.modelled_as += "; the switch and link counts above are of that model (ecmp: pair "
                     "builds every cable)";
  }
  return f;
}

} // namespace

FatTreeParams parse_fat_tree(const Params& section, FatTreeParams defaults, bool nodes_required) {
  FatTreeParams p = read_fields(section, fields(nodes_required), defaults);
  (void)plan(p, section);
  return p;
}

bool fat_tree_sprays(const FatTreeParams& p) {
  const EcmpPolicy* policy = ecmp_policy(p.ecmp);
  return policy != nullptr && policy->routing == ClosLayout::Routing::spray;
}

bool fat_tree_merged_part(const FatTreeParams& p, const std::string& name) {
  if (!fat_tree_sprays(p)) return false;
  auto upper = [](const std::string& end) {
    return end.rfind("spine", 0) == 0 || end.rfind("core", 0) == 0;
  };
  size_t dash = name.find('-');
  if (dash == std::string::npos) return upper(name);
  return upper(name.substr(0, dash)) || upper(name.substr(dash + 1));
}

bool fat_tree_rail_symmetric(const FatTreeParams& p) {
  return rail_symmetric(plan(p, code_context("FatTreeParams")));
}

TopologySize fat_tree_size(const FatTreeParams& p) {
  return size_of(p, plan(p, code_context("FatTreeParams")));
}

Topology build_fat_tree(const FatTreeParams& p) {
  ClosLayout l = plan(p, code_context("FatTreeParams"));
  auto g = std::make_unique<Graph>();
  l.nodes = add_nodes(*g, p.node(), p.nodes);
  add_switches(*g, p, l);
  return Topology(std::move(g), std::make_unique<ClosRouter>(l), p.gpus_per_node, facts_of(p, l));
}

std::vector<TopologySetting> fat_tree_settings(const FatTreeParams& p) {
  return settings_of(fields(true), p);
}

// One DGX SuperPOD scalable unit: 32 DGX H100 nodes, 8 rail leaves of 64 ports (32 down, 32 up).
FatTreeParams dgx_h100_defaults() {
  FatTreeParams p; // the FatTreeParams defaults are already a DGX H100's node
  p.nodes = 32;
  p.radix = 64;
  p.rail_optimized = true;
  return p;
}

FatTreeParams nvl72_defaults() {
  FatTreeParams p;
  p.gpus_per_node = 72;
  p.nvlink_bandwidth = BytesPerSecond(900e9); // NVLink 5: 18 links x 50 GB/s per direction
  p.leaf_down_ports = 36;                     // two leaves per rack, each a 72-port switch at 1:1
  p.radix = 72;
  return p;
}

} // namespace trainsim::topo
