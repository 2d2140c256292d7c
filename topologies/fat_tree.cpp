#include "topologies/fat_tree.hpp"

#include <cmath>

namespace trainsim::topo {
namespace {

struct Layout {
  int gpus = 0;
  int leaves = 0;
  int spines = 0; ///< uplinks per leaf; 0 when one leaf serves every NIC
  Vertex first_nvswitch = 0, first_nic = 0, first_leaf = 0, first_spine = 0;
};

class FatTreeRouter final : public Router {
public:
  FatTreeRouter(Layout layout, int gpus_per_node, int leaf_down_ports)
      : l_(layout), gpn_(gpus_per_node), down_(leaf_down_ports) {}

  void route(const Topology& t, int src, int dst, std::vector<Hop>& out) const override {
    if (src / gpn_ == dst / gpn_) {
      Vertex nvswitch = l_.first_nvswitch + static_cast<Vertex>(src / gpn_);
      push(t, static_cast<Vertex>(src), nvswitch, out);
      push(t, nvswitch, static_cast<Vertex>(dst), out);
      return;
    }
    Vertex nic_s = l_.first_nic + static_cast<Vertex>(src), nic_d = l_.first_nic + static_cast<Vertex>(dst);
    Vertex leaf_s = l_.first_leaf + static_cast<Vertex>(src / down_);
    Vertex leaf_d = l_.first_leaf + static_cast<Vertex>(dst / down_);
    push(t, static_cast<Vertex>(src), nic_s, out);
    push(t, nic_s, leaf_s, out);
    if (leaf_s != leaf_d) {
      // ECMP: the spine is a hash of the (src, dst) pair, so one pair always takes one path.
      auto h = static_cast<unsigned>(src) * 2654435761u ^ static_cast<unsigned>(dst) * 40503u;
      Vertex spine = l_.first_spine + static_cast<Vertex>(h % static_cast<unsigned>(l_.spines));
      push(t, leaf_s, spine, out);
      push(t, spine, leaf_d, out);
    }
    push(t, leaf_d, nic_d, out);
    push(t, nic_d, static_cast<Vertex>(dst), out);
  }

private:
  static void push(const Topology& t, Vertex a, Vertex b, std::vector<Hop>& out) {
    auto [e, found] = boost::edge(a, b, t.graph());
    (void)found;
    out.push_back(Hop{t.graph()[e].id, a < b});
  }

  Layout l_;
  int gpn_;
  int down_;
};

Vertex add_vertices(Graph& g, VertexKind kind, int level, int count) {
  Vertex first = boost::num_vertices(g);
  for (int i = 0; i < count; ++i) boost::add_vertex(VertexProps{kind, level, i}, g);
  return first;
}

void add_link(Graph& g, Vertex a, Vertex b, BytesPerSecond bw, Seconds latency, Tier tier) {
  int id = static_cast<int>(boost::num_edges(g));
  boost::add_edge(a, b, LinkProps{bw, latency, tier, id}, g);
}

} // namespace

FatTreeParams FatTreeParams::from(const Params& params) {
  FatTreeParams p;
  p.nodes = params.get_positive<int>("nodes");
  p.gpus_per_node = params.get_positive_or("gpus_per_node", p.gpus_per_node);
  p.nvlink_bandwidth = params.get_positive_or("nvlink_bandwidth", p.nvlink_bandwidth);
  p.nvlink_latency = params.get_or("nvlink_latency", p.nvlink_latency);
  p.pcie_bandwidth = params.get_positive_or("pcie_bandwidth", p.pcie_bandwidth);
  p.pcie_latency = params.get_or("pcie_latency", p.pcie_latency);
  p.nic_bandwidth = params.get_positive_or("nic_bandwidth", p.nic_bandwidth);
  p.network_latency = params.get_or("network_latency", p.network_latency);
  p.leaf_down_ports = params.get_positive_or("leaf_down_ports", p.leaf_down_ports);
  p.oversubscription = params.get_positive_or("oversubscription", p.oversubscription);
  for (const char* key : {"nvlink_latency", "pcie_latency", "network_latency"})
    if (params.has(key) && params.get<Seconds>(key).value() < 0) params.fail(key, "must not be negative");
  if (p.leaf_down_ports < p.oversubscription) params.fail("oversubscription", "leaves a leaf with no uplink");
  params.reject_unknown();
  return p;
}

Topology build_fat_tree(const Params& params) { return build_fat_tree(FatTreeParams::from(params)); }

Topology build_fat_tree(const FatTreeParams& p) {
  Graph g;
  Layout l;
  l.gpus = p.nodes * p.gpus_per_node;
  l.leaves = (l.gpus + p.leaf_down_ports - 1) / p.leaf_down_ports;
  l.spines = l.leaves > 1 ? static_cast<int>(std::floor(p.leaf_down_ports / p.oversubscription)) : 0;
  add_vertices(g, VertexKind::gpu, 0, l.gpus); // GPU rank r is vertex r
  l.first_nvswitch = add_vertices(g, VertexKind::nvswitch, 0, p.nodes);
  l.first_nic = add_vertices(g, VertexKind::nic, 0, l.gpus);
  l.first_leaf = add_vertices(g, VertexKind::net_switch, 1, l.leaves);
  l.first_spine = add_vertices(g, VertexKind::net_switch, 2, l.spines);
  for (int r = 0; r < l.gpus; ++r) {
    auto gpu = static_cast<Vertex>(r);
    add_link(g, gpu, l.first_nvswitch + static_cast<Vertex>(r / p.gpus_per_node), p.nvlink_bandwidth,
             p.nvlink_latency, Tier::nvlink);
    add_link(g, gpu, l.first_nic + gpu, p.pcie_bandwidth, p.pcie_latency, Tier::host);
    add_link(g, l.first_nic + gpu, l.first_leaf + static_cast<Vertex>(r / p.leaf_down_ports), p.nic_bandwidth,
             p.network_latency, Tier::leaf);
  }
  for (int leaf = 0; leaf < l.leaves; ++leaf)
    for (int s = 0; s < l.spines; ++s)
      add_link(g, l.first_leaf + static_cast<Vertex>(leaf), l.first_spine + static_cast<Vertex>(s), p.nic_bandwidth,
               p.network_latency, Tier::spine);
  auto router = std::make_unique<FatTreeRouter>(l, p.gpus_per_node, p.leaf_down_ports);
  return Topology(std::move(g), std::move(router), p.gpus_per_node);
}

} // namespace trainsim::topo
