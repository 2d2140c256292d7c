#include "tools/fabric_summary.hpp"

namespace trainsim {

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
