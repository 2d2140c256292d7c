// The closed form's view of a topology graph: the figures must be the most favourable the
// graph offers, or the bound stops being a bound.
#include "tools/fabric_summary.hpp"

#include <gtest/gtest.h>

#include "tools/scenario_loader.hpp"

namespace trainsim {
namespace {

LoadedScenario mlp_on(const std::string& topology, const std::string& execution) {
  return parse_scenario("model: {kind: mlp, layers: 4, d_model: 256, d_ff: 1024, seq_len: 64, experts: 4}\n"
                        "system:\n  topology: " + topology + "\nexecution: " + execution + "\n",
                        "fabric_summary_test.yaml");
}

TEST(FabricSummary, ATorusNodeSendsAnAllToAllOverAllItsPorts) {
  // 4x2x2 torus, one GPU per node, 50 GB/s links: GPU 0 has two neighbours along the ring
  // of 4 and one along each ring of 2 (whose two directions are the same link): 4 ports,
  // 200 GB/s together. A single flow still gets one link, 50 GB/s.
  LoadedScenario s = mlp_on("{generator: torus, dims: 4x2x2, link_bandwidth: 50GBps}",
                            "{dp: 4, tp: 4, ep: 4, global_batch: 4}");
  FabricSummary f = fabric_summary(s.topology, s.scenario.execution);
  EXPECT_DOUBLE_EQ(f.network_bandwidth.value(), 50e9);
  EXPECT_DOUBLE_EQ(f.network_injection_bandwidth.value(), 200e9);
  EXPECT_TRUE(f.ep_crosses_nodes); // tp 4 >= 1 GPU per node: EP members are in different nodes
}

TEST(FabricSummary, AFatTreeGpuHasOneNetworkPort) {
  // DGX-like nodes of 8 GPUs, 50 GB/s NICs: one port per GPU. EP groups are ep consecutive
  // DP members, tp = 2 GPUs apart: 4 of them span 8 GPUs, one node, so not every pair crosses.
  LoadedScenario s = mlp_on("{generator: fat-tree, nodes: 4, gpus_per_node: 8}", "{dp: 16, tp: 2, ep: 4, global_batch: 16}");
  FabricSummary f = fabric_summary(s.topology, s.scenario.execution);
  EXPECT_DOUBLE_EQ(f.network_injection_bandwidth.value(), f.network_bandwidth.value());
  EXPECT_FALSE(f.ep_crosses_nodes);
  EXPECT_TRUE(f.dp_crosses_nodes); // (16 - 1) x 2 >= 8
}

} // namespace
} // namespace trainsim
