// The frontier's points as scenarios (models/frontier_scenario.cpp): the plan, model and
// hardware the closed form priced, on a named topology, with the collectives that run the
// closed form's assumptions.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "models/error.hpp"
#include "models/frontier.hpp"
#include "models/layout.hpp"
#include "models/workload.hpp"
#include "tests/models/frontier_fixtures.hpp"

namespace trainsim {
namespace {

using testing::small_shape;

FrontierPoint hand_point() {
  FrontierPoint p;
  p.shape = small_shape(4, 4 * 8 * 512.4);
  p.shape.compute = Flop(1e24);
  p.feasible = true;
  p.plan = {4, 2, 1, 2, 1, 8, 1};
  p.times.tokens_per_microbatch = 512.4;
  return p;
}

TEST(FrontierScenario, APointIsAnMlpScenarioOnItsPlan) {
  // Whole numbers for the scenario: seq_len = round(512.4) = 512 tokens, one sequence per
  // microbatch, global batch = dp x m = 32. 16 GPUs and tp 2 dividing the 8-GPU domain:
  // 2 nodes of 8. The GPU is the H100 the baseline priced, its NVLink and NIC 450 and 50 GB/s.
  FrontierHardware hw = resolve_hardware(FrontierOptions{});
  Scenario s = frontier_scenario(hand_point(), hw);
  EXPECT_EQ(s.model.kind, ModelKind::mlp);
  EXPECT_EQ(s.model.layers, 4);
  EXPECT_EQ(s.model.d_model, 1000);
  EXPECT_EQ(s.model.d_ff, 4000);
  EXPECT_EQ(s.model.seq_len, 512);
  EXPECT_EQ(s.model.precision, "bf16");
  EXPECT_EQ(s.execution.dp, 4);
  EXPECT_EQ(s.execution.tp, 2);
  EXPECT_EQ(s.execution.pp, 2);
  EXPECT_EQ(s.execution.global_batch, 32);
  EXPECT_EQ(s.execution.micro_batch, 1);
  EXPECT_EQ(s.execution.microbatches(), 8);
  EXPECT_EQ(s.execution.schedule, PipelineSchedule::one_f_one_b);
  EXPECT_EQ(s.execution.zero, 1);
  EXPECT_TRUE(s.execution.delayed_update);
  EXPECT_FALSE(s.execution.dp_overlap);
  EXPECT_EQ(s.system.gpu.preset, "h100-sxm");
  EXPECT_EQ(s.system.topology.generator, "rail-optimized");
  const auto& t = std::get<topo::FatTreeParams>(s.system.topology.params);
  EXPECT_EQ(t.nodes, 2);
  EXPECT_EQ(t.gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(t.nvlink_bandwidth.value(), 450e9);
  EXPECT_DOUBLE_EQ(t.nic_bandwidth.value(), 50e9);
  // The TP block (2 GPUs) is inside a node: its overlapped splits run as Transformer Engine's
  // userbuffers kernels do, directly among the peers.
  EXPECT_TRUE(s.execution.tp_overlap);
  EXPECT_TRUE(s.execution.sequence_parallel); // Megatron-LM's overlap needs it
  EXPECT_EQ(s.execution.tp_collective, "direct");
  EXPECT_TRUE(s.execution.launch_overlap);
}

TEST(FrontierScenario, TheDelayedUpdatesSecondGradientBufferGetsTheHbmItNeeds) {
  // The hand point holds 2 layers of 2 x 1000 x 4000 / tp 2 = 8e6 parameters per GPU: weights
  // 1.6e7 B, gradients twice 1.6e7 B (the delayed update's second buffer), optimizer
  // 12 x 8e6 / 4 = 2.4e7 B, and some activations: about 7.2e7 B, which an 80 GB H100 holds
  // as it is. On a GPU of 5e7 B it does not fit, and the scenario's GPU gets the whole GB
  // above its need: 1 GB.
  FrontierHardware hw = resolve_hardware(FrontierOptions{});
  EXPECT_EQ(frontier_scenario(hand_point(), hw).system.gpu.hbm_capacity, hw.gpu.hbm_capacity);
  hw.gpu.hbm_capacity = Bytes(5e7);
  Scenario s = frontier_scenario(hand_point(), hw);
  EXPECT_GT(memory_per_gpu(s.model, s.execution, s.system.gpu).total(), Bytes(7.2e7));
  EXPECT_EQ(s.system.gpu.hbm_capacity, Bytes(1e9));
}

TEST(FrontierScenario, NodesOfOneTpGroupWhenItDoesNotDivideTheDomain) {
  // tp 6 does not divide 8: nodes of 6 GPUs, 4 x 6 x 2 / 6 = 8 of them.
  FrontierPoint p = hand_point();
  p.plan.tp_1d = 6;
  topo::TopologySpec spec = frontier_topology(p.plan, resolve_hardware(FrontierOptions{}));
  const auto& t = std::get<topo::FatTreeParams>(spec.params);
  EXPECT_EQ(t.gpus_per_node, 6);
  EXPECT_EQ(t.nodes, 8);
}

TEST(FrontierScenario, TwoDimensionalBlocksKeepTheClosedFormsTiersWhereTheyCan) {
  // The hand point's dp 4 x pp 2 with 2-D TP, on the H100 domain of 8 GPUs.
  FrontierOptions o;
  auto nodes = [&](int tp_1d, int tp_2d) {
    FrontierPoint p = hand_point();
    p.plan.tp_1d = tp_1d, p.plan.tp_2d = tp_2d;
    topo::TopologySpec spec = frontier_topology(p.plan, resolve_hardware(o));
    const auto& t = std::get<topo::FatTreeParams>(spec.params);
    return std::pair{t.gpus_per_node, t.nodes};
  };
  // 2 x 2 = 4 divides 8: nodes of 8, two blocks each; 4 x 2 x 4 x 2 / 8 = 8 nodes.
  EXPECT_EQ(nodes(2, 2), (std::pair{8, 4}));
  // 8 x 2 = 16 spans two nodes with the second axis (2) inside each, as the closed form
  // nests it (second axis on NVLink, first across nodes): nodes of 8, 16 x 8 / 8 = 16.
  EXPECT_EQ(nodes(8, 2), (std::pair{8, 16}));
  // 2 x 8: the node is one group of the second axis, the first axis one GPU per node.
  EXPECT_EQ(nodes(2, 8), (std::pair{8, 16}));
  // 4 x 3 = 12: 3 does not divide 8, so nodes of one block, 96 / 12 = 8.
  EXPECT_EQ(nodes(4, 3), (std::pair{12, 8}));
}

TEST(FrontierScenario, TensorParallelBlocksAcrossNodesRunPat) {
  // tp 2 x tp_2d 8: the node is one group of the second axis, and each group of the first
  // axis has one member on each of two nodes. The closed form counts ceil(log2 p) latency
  // steps per half on both axes; PAT takes that many on the first axis and runs the ring
  // inside the node. With the ring knob, the ring everywhere.
  FrontierPoint p = hand_point();
  p.plan.tp_2d = 8;
  FrontierHardware hw = resolve_hardware(FrontierOptions{});
  Scenario s = frontier_scenario(p, hw);
  const auto& t = std::get<topo::FatTreeParams>(s.system.topology.params);
  ASSERT_EQ(t.gpus_per_node, 8);
  ASSERT_FALSE(tp_block_in_node(s.execution, t.gpus_per_node));
  EXPECT_EQ(s.execution.tp_collective, "pat");
  hw.collective = CollectiveLatency::ring;
  EXPECT_EQ(frontier_scenario(p, hw).execution.tp_collective, "ring");
}

TEST(FrontierScenario, SaysWhatCannotBeReplayed) {
  FrontierPoint p = hand_point();
  EXPECT_EQ(replay_obstacle(p), "");
  p.plan.interleave = 2; // pp x v = 4 divides the 4 layers
  EXPECT_EQ(replay_obstacle(p), "");
  EXPECT_EQ(frontier_scenario(p, resolve_hardware(FrontierOptions{})).execution.schedule,
            PipelineSchedule::interleaved);
  p.plan.interleave = 4; // 8 does not
  EXPECT_EQ(replay_obstacle(p), "interleaving whose pp x interleave does not divide the layers");
  p.plan.interleave = 1;
  p.plan.tp_2d = 2; // execution.tp_2d
  EXPECT_EQ(replay_obstacle(p), "");
  EXPECT_EQ(frontier_scenario(p, resolve_hardware(FrontierOptions{})).execution.tp_2d, 2);
  p.plan.ep = 2; // the simulator's 2-D TP is the dense MLP block's
  EXPECT_EQ(replay_obstacle(p), "2-D tensor parallelism with experts (not modelled)");
  p.plan.tp_2d = 1, p.plan.ep = 1;
  p.feasible = false;
  EXPECT_EQ(replay_obstacle(p), "infeasible");
  EXPECT_THROW((void)frontier_scenario(p, resolve_hardware(FrontierOptions{})), InternalError);
}

TEST(FrontierScenario, TheSearchedBaselinePointReplaysItsPlan) {
  // 1e24 FLOP: the search's plan, whole. Its GPUs are the scenario's, and a replica's
  // microbatch is the plan's tokens per microbatch, rounded.
  FrontierPoint point = frontier_point(Flop(1e24), FrontierOptions{}, false);
  ASSERT_EQ(replay_obstacle(point), "");
  Scenario s = frontier_scenario(point, resolve_hardware(FrontierOptions{}));
  EXPECT_EQ(s.execution.gpus(), std::lround(point.plan.gpus()));
  EXPECT_EQ(s.model.seq_len, std::lround(point.times.tokens_per_microbatch));
  EXPECT_EQ(s.model.d_model, std::lround(point.shape.layer.d_model));
  const auto& t = std::get<topo::FatTreeParams>(s.system.topology.params);
  EXPECT_EQ(t.nodes * t.gpus_per_node, s.execution.gpus());
}

} // namespace
} // namespace trainsim
