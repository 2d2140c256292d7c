// The closed form's view of a topology graph: each group priced at the slowest tier its
// members actually cross, read off the graph's routes under the rank layout.
#include "tools/study/fabric_summary.hpp"

#include "models/collective_cost.hpp"

#include <gtest/gtest.h>

#include <utility>

#include "models/hardware_presets.hpp"
#include "tools/io/scenario_loader.hpp"

namespace trainsim {
namespace {

// A small sparse MLP on the H100 SXM preset: only the fabric and the rank layout matter here.
LoadedScenario mlp_on(topo::TopologySpec topology, ExecutionSpec execution) {
  Scenario s;
  s.file = "fabric_summary_test.yaml";
  s.model = {.kind = ModelKind::mlp,
             .layers = 4,
             .d_model = 256,
             .d_ff = 1024,
             .seq_len = 64,
             .experts = 8};
  s.system.gpu = find_gpu_preset("h100-sxm")->gpu;
  s.system.topology = std::move(topology);
  s.execution = std::move(execution);
  return build_scenario(std::move(s));
}

// Four nodes of 8 GPUs; the tests' 50 GB/s NIC and 450 GB/s NVLink are the defaults.
topo::FatTreeParams four_nodes() { return {.nodes = 4, .gpus_per_node = 8}; }

TEST(FabricSummary, AnExpertGroupInsideANodeStaysOnNvlink) {
  // Nodes of 8 GPUs, tp 2: EP groups are ep consecutive DP members, 2 GPUs apart, so 4 of
  // them span ranks 0..7, one node.
  LoadedScenario s = mlp_on(four_nodes(), {.dp = 16, .tp = 2, .ep = 4, .global_batch = 16});
  StageFabric f = fabric_summary(s.topology, s.scenario.execution).stages.front();
  EXPECT_EQ(f.ep.name, "nvlink");
  // The DP ring of 16 spans 4 nodes: its slowest pair is NIC -> leaf at 50 GB/s.
  ASSERT_EQ(f.dp.size(), 1u);
  EXPECT_EQ(f.dp.front().ring.name, "leaf");
  EXPECT_DOUBLE_EQ(f.dp.front().ring.bandwidth.value(), 50e9);
}

TEST(FabricSummary, AnExpertGroupOverTwoNodesPaysTheNicInEveryRound) {
  // ep 8 with tp 2: members i = 0..7 at ranks 2i, members 0-3 in node 0 and 4-7 in node 1.
  // A round stays in the node only if both its sides do: member 1's round 1 (to member 2,
  // from member 0) and round 7 (to member 0, from member 2); every other round of member 1,
  // and every round of members 0 and 3, leaves the node. The bound takes the member with the
  // cheapest rounds: 5 at the NIC's 50 GB/s and 2 at NVLink's 450 GB/s.
  LoadedScenario s = mlp_on(four_nodes(), {.dp = 16, .tp = 2, .ep = 8, .global_batch = 16});
  StageFabric f = fabric_summary(s.topology, s.scenario.execution).stages.front();
  EXPECT_EQ(f.ep.name, "leaf");
  EXPECT_DOUBLE_EQ(f.ep.seconds_per_byte, 5 / 50e9 + 2 / 450e9);
}

TEST(FabricSummary, DragonflyGlobalLinksBindTheDataParallelRing) {
  // 5 groups of 4 routers, one 8-GPU node per router, 100 Gb/s = 12.5 GB/s global links:
  // the DP ring over the 20 nodes leaves its group, so its slowest pair is a global link.
  topo::DragonflyParams dragonfly{.groups = 5,
                                  .routers_per_group = 4,
                                  .global_links = 2,
                                  .nodes_per_router = 1,
                                  .global_bandwidth = BytesPerSecond(100e9 / 8)};
  dragonfly.node.gpus_per_node = 8;
  LoadedScenario s = mlp_on(dragonfly, {.dp = 20, .tp = 8, .global_batch = 20});
  StageFabric f = fabric_summary(s.topology, s.scenario.execution).stages.front();
  CollectiveCost dp = dearest("ring", 2, Bytes(1e9), 20, f.dp);
  EXPECT_EQ(dp.tier, "global");
  EXPECT_EQ(f.tp.front().ring.name, "nvlink");
}

TEST(FabricSummary, ATorusPricesEachRoundByItsOwnPath) {
  // 4x2x2 torus, one GPU per chip, 50 GB/s links: tp 4 groups the first ring; the EP group of
  // 4 DP members lies along the other dimensions; every pair is a direct link or two.
  LoadedScenario s =
      mlp_on(topo::TorusParams{.dims = {4, 2, 2}, .link_bandwidth = BytesPerSecond(50e9)},
             {.dp = 4, .tp = 4, .ep = 4, .global_batch = 4});
  StageFabric f = fabric_summary(s.topology, s.scenario.execution).stages.front();
  EXPECT_EQ(f.ep.name, "direct");
  EXPECT_DOUBLE_EQ(f.ep.seconds_per_byte, 3 / 50e9);
}

} // namespace
} // namespace trainsim
