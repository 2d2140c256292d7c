#include "topologies/build.hpp"

#include <cstdio>

namespace trainsim::topo {

Vertex add_vertices(Graph& g, VertexKind kind, int level, int count) {
  Vertex first = boost::num_vertices(g);
  for (int i = 0; i < count; ++i) boost::add_vertex(VertexProps{kind, level, i}, g);
  return first;
}

int add_link(Graph& g, Vertex a, Vertex b, BytesPerSecond bandwidth, Seconds latency, Tier tier) {
  int id = static_cast<int>(boost::num_edges(g));
  boost::add_edge(a, b, LinkProps{bandwidth, latency, tier, id}, g);
  return id;
}

Seconds get_latency_or(const Params& params, const char* key, Seconds fallback) {
  Seconds value = params.get_or(key, fallback);
  if (value.value() < 0) params.fail(key, "must not be negative");
  return value;
}

namespace {

std::string format_count(double n) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", n);
  return text;
}

} // namespace

void check_gpu_count(const Params& params, const char* key, double gpus) {
  if (gpus > static_cast<double>(kMaxGpus))
    params.fail(key, "gives more GPUs than the " + std::to_string(kMaxGpus) + " supported");
}

void check_link_count(const Params& params, const char* key, double links) {
  if (links > kMaxLinks)
    params.fail(key, "gives " + format_count(links) + " links, more than the " + format_count(kMaxLinks) + " supported");
}

NodeParams NodeParams::from(const Params& params, NodeParams defaults) {
  NodeParams p = defaults;
  p.gpus_per_node = params.get_positive_or("gpus_per_node", p.gpus_per_node);
  p.nvlink_bandwidth = params.get_positive_or("nvlink_bandwidth", p.nvlink_bandwidth);
  p.nvlink_latency = get_latency_or(params, "nvlink_latency", p.nvlink_latency);
  p.pcie_bandwidth = params.get_positive_or("pcie_bandwidth", p.pcie_bandwidth);
  p.pcie_latency = get_latency_or(params, "pcie_latency", p.pcie_latency);
  p.nic_bandwidth = params.get_positive_or("nic_bandwidth", p.nic_bandwidth);
  p.network_latency = get_latency_or(params, "network_latency", p.network_latency);
  return p;
}

NodeLayout add_nodes(Graph& g, const NodeParams& p, int nodes) {
  NodeLayout l;
  l.nodes = nodes;
  l.gpus = nodes * p.gpus_per_node;
  add_vertices(g, VertexKind::gpu, 0, l.gpus);
  l.first_nvswitch = add_vertices(g, VertexKind::nvswitch, 0, nodes);
  l.first_nic = add_vertices(g, VertexKind::nic, 0, l.gpus);
  for (int r = 0; r < l.gpus; ++r) {
    auto gpu = static_cast<Vertex>(r);
    add_link(g, gpu, l.first_nvswitch + static_cast<Vertex>(r / p.gpus_per_node), p.nvlink_bandwidth,
             p.nvlink_latency, Tier::nvlink);
    add_link(g, gpu, l.first_nic + gpu, p.pcie_bandwidth, p.pcie_latency, Tier::host);
  }
  return l;
}

} // namespace trainsim::topo
