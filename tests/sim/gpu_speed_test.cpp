// GPUs of unequal speed (models/gpu_speed.hpp): the quantiles each rank takes, and a step that
// runs at its slowest GPU's pace where the GPUs synchronise after every block.
#include "tests/sim/step_fixtures.hpp"

#include <algorithm>

#include "models/gpu_speed.hpp"
#include "models/hardware_presets.hpp"

namespace trainsim {
namespace {

using namespace testing;

// One node of 8 H100s running a 2-layer transformer, split 8 ways by `e`.
Scenario one_node(ExecutionSpec e, double spread, topo::FatTreeParams links = ideal_fabric()) {
  ModelSpec m{.layers = 2, .d_model = 4096, .d_ff = 16384, .heads = 32, .seq_len = 2048};
  GpuSpec g = h100_preset();
  g.speed_spread = spread;
  return scenario(fat_tree(1, 8, std::move(links)), e, m, g);
}

TEST(GpuSpeed, ThePresetsSpreadIsAFivePercentRangeOnEightGpus) {
  // 5% as the expected range of 8 normal draws, d2(8) = 2.847 standard deviations.
  EXPECT_DOUBLE_EQ(find_gpu_preset("h100-sxm")->gpu.speed_spread, 0.05 / 2.847);
  EXPECT_DOUBLE_EQ(find_gpu_preset("a100-sxm-80gb")->gpu.speed_spread, 0.05 / 2.847);
}

TEST(GpuSpeed, AQuantileAboveTheMedianIsSlowerByItsDeviations) {
  // z(0.975) = 1.959964: a 2% spread runs that GPU at 1 - 0.0391993 of the rate, so its kernels
  // take 1 / 0.9608007 = 1.0407986 times as long; the median and below run at the figures.
  EXPECT_NEAR(slowdown_at(0.975, 0.02), 1.0407986, 1e-7);
  EXPECT_DOUBLE_EQ(slowdown_at(0.5, 0.02), 1.0);
  EXPECT_DOUBLE_EQ(slowdown_at(0.1, 0.02), 1.0);
}

TEST(GpuSpeed, EightGpusTakeTheEightQuantiles) {
  // Quantiles (i + 0.5) / 8: the lower four at the preset's rate, the upper four at z(0.5625) =
  // 0.157311, z(0.6875) = 0.488776, z(0.8125) = 0.887147, z(0.9375) = 1.534121; with a 2% spread
  // the slowest takes 1 / (1 - 0.0306824) = 1.0316536 times as long.
  std::vector<double> s = kernel_slowdowns(one_node({.dp = 8, .global_batch = 8}, 0.02));
  ASSERT_EQ(s.size(), 8U);
  std::sort(s.begin(), s.end());
  for (size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(s[i], 1.0);
  EXPECT_NEAR(s[4], 1.0 / (1.0 - 0.02 * 0.157311), 1e-7);
  EXPECT_NEAR(s[7], 1.0316536, 1e-7);
  // Every rank is somewhere: the order is a shuffle, and a fixed one.
  EXPECT_EQ(kernel_slowdowns(one_node({.dp = 8, .global_batch = 8}, 0.02)),
            kernel_slowdowns(one_node({.dp = 8, .global_batch = 8}, 0.02)));
}

TEST(GpuSpeed, OnlyTransformersPricedPerOperatorHaveSlowGpus) {
  Scenario s = one_node({.dp = 8, .global_batch = 8}, 0.02);
  EXPECT_TRUE(kernel_slowdowns(one_node({.dp = 8, .global_batch = 8}, 0.0)).empty());
  s.model.compute = ComputeModel::roofline;
  EXPECT_TRUE(kernel_slowdowns(s).empty());
  s.model = mlp();
  EXPECT_TRUE(kernel_slowdowns(s).empty());
}

TEST(GpuSpeed, ATensorParallelStepRunsAtItsSlowestGpusPace) {
  // TP 8 on links that take no time: every block's kernels end in a TP collective that waits
  // for the slowest of the 8 GPUs, so the step is the even step x 1.0316536 (the 8th quantile,
  // above), in both fidelities and with the node bundled.
  double even = simulate(one_node({.tp = 8, .global_batch = 1}, 0.0)).result.step_time.value();
  for (sim::Fidelity f : {sim::Fidelity::fast, sim::Fidelity::fine}) {
    Outcome slow = simulate(one_node({.tp = 8, .global_batch = 1}, 0.02), f);
    EXPECT_NEAR(slow.result.step_time.value(), even * 1.0316536, 1e-6 * even);
    // The bound prices every GPU at the preset's figures: a lower bound still.
    EXPECT_GT(slow.result.step_time.value(), slow.summary.bound.value());
  }
}

TEST(GpuSpeed, DataParallelReplicasWaitForTheSlowestAtTheGradientSync) {
  // DP 8, one microbatch each, on free links: each replica computes alone, then the all-reduce
  // waits for the slowest, whose compute is 1.0316536 times the even one.
  double even = simulate(one_node({.dp = 8, .global_batch = 8}, 0.0)).result.step_time.value();
  Outcome slow = simulate(one_node({.dp = 8, .global_batch = 8}, 0.02));
  EXPECT_NEAR(slow.result.step_time.value(), even * 1.0316536, 1e-6 * even);
  EXPECT_GT(category(slow.summary, "dp_comm"), 0.0); // the fast replicas' wait
}

TEST(GpuSpeed, ABundledNodeRunsAtItsSlowestGpusPaceAsItsOwnFlowsDo) {
  // TP 8 x DP 4 over 4 nodes on a shared leaf, gradients synchronised over the network: rail
  // bundling runs each node at its slowest GPU's pace, which is what each GPU's own flows give.
  ModelSpec m{.layers = 2, .d_model = 4096, .d_ff = 16384, .heads = 32, .seq_len = 2048};
  topo::FatTreeParams rails = fat_tree(4);
  rails.rail_optimized = true;
  rails.ecmp = "rail";
  Scenario s = scenario(rails, {.dp = 4, .tp = 8, .global_batch = 8}, m, h100_preset());
  LoadedScenario loaded = build_unguarded(s);
  sim::SimOptions bundled{.fidelity = sim::Fidelity::fast}, flows = bundled;
  flows.bundle_rails = false;
  sim::SimResult a = sim::simulate(loaded.scenario, loaded.topology, bundled);
  sim::SimResult b = sim::simulate(loaded.scenario, loaded.topology, flows);
  EXPECT_EQ(a.rail_bundle, 8);
  EXPECT_NEAR(a.step_time.value(), b.step_time.value(), 1e-9 * b.step_time.value());
}

} // namespace
} // namespace trainsim
