#include "tools/fabric_summary.hpp"

#include <boost/range/iterator_range.hpp>

namespace trainsim {
namespace {

// What GPU 0 can push into the network at once. With one port (a NIC), every flow to another
// node shares it and the path's bottleneck: the network bandwidth. With several (a torus
// node), an all-to-all sends to several partners at once, at most the ports' sum.
BytesPerSecond injection_bandwidth(const topo::Topology& t, BytesPerSecond one_port) {
  BytesPerSecond total(0);
  int ports = 0;
  const topo::Graph& g = t.graph();
  for (auto e : boost::make_iterator_range(boost::out_edges(t.gpu_vertex(0), g)))
    if (g[e].tier != topo::Tier::nvlink) total += g[e].bandwidth, ++ports;
  return ports > 1 ? total : one_port;
}

} // namespace

FabricSummary fabric_summary(const topo::Topology& t, const ExecutionSpec& e) {
  FabricSummary f;
  const int g = t.gpus_per_node();
  f.nvlink_domain = g;
  if (g > 1) {
    f.nvlink_bandwidth = t.path_bandwidth(0, 1);
    f.nvlink_hop_latency = t.path_latency(0, 1);
    f.nvlink_hops = 1;
  }
  if (t.gpu_count() > g) {
    f.network_bandwidth = t.path_bandwidth(0, g);
    f.network_hop_latency = t.path_latency(0, g);
    f.network_hops = 1;
    f.network_injection_bandwidth = injection_bandwidth(t, f.network_bandwidth);
  }
  if (const auto& facts = t.facts()) f.oversubscription = facts->oversubscription;
  // A ring crosses nodes when some pair of neighbours sits in different nodes.
  f.tp_crosses_nodes = e.tp > g;
  f.dp_crosses_nodes = (e.dp - 1) * e.tp >= g;
  f.pp_crosses_nodes = e.tp * e.dp >= g;
  // EP groups are ep consecutive DP members (tp GPUs apart); the EDP ring links every ep-th.
  f.edp_crosses_nodes = (e.dp - e.ep) * e.tp >= g;
  f.ep_crosses_nodes = e.tp >= g;
  return f;
}

} // namespace trainsim
