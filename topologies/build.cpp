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

namespace {

std::string format_count(double n) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", n);
  return text;
}

} // namespace

void check_gpu_count(const Params& context, const char* key, double gpus) {
  if (gpus > static_cast<double>(kMaxGpus))
    context.fail(key, "gives more GPUs than the " + std::to_string(kMaxGpus) + " supported");
}

void check_link_count(const Params& context, const char* key, double links) {
  if (links > kMaxLinks)
    context.fail(key, "gives " + format_count(links) + " links, more than the " +
                          format_count(kMaxLinks) + " supported");
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
    add_link(g, gpu, l.first_nvswitch + static_cast<Vertex>(r / p.gpus_per_node),
             p.nvlink_bandwidth, p.nvlink_latency, Tier::nvlink);
    add_link(g, gpu, l.first_nic + gpu, p.pcie_bandwidth, p.pcie_latency, Tier::host);
  }
  return l;
}

} // namespace trainsim::topo
