// 2-D tensor parallelism (execution.tp_2d) end to end: the bytes each GPU moves against the
// paper's formula (docs/paper-model.md), the step against the closed form where nothing
// contends, and rail bundling against every GPU's own flows.
#include <gtest/gtest.h>

#include <algorithm>

#include "models/step_compute.hpp"
#include "models/workload.hpp"
#include "tests/sim/step_fixtures.hpp"

namespace trainsim {
namespace {

using namespace testing;

// Per layer, with 2 x 2 ranks on step_fixtures' MLP block, the bytes one GPU puts into each
// TP all-reduce: the hidden activation's over tp_2d, 4096 tokens x 16384 / 2 x 2 B, and the
// output's over tp, 4096 x 4096 / 2 x 2 B.
constexpr double kHiddenBytes = 67108864.0, kOutputBytes = 16777216.0;

// One node of `tp x tp_2d` GPUs, dp 1, pp 1: step_fixtures' MLP block (d 4096, d_ff 16384,
// sequences of 4096 tokens), 2 layers, one microbatch of one sequence.
Scenario one_node(int tp, int tp_2d) {
  ExecutionSpec e{.tp = tp, .tp_2d = tp_2d, .global_batch = 1};
  return scenario(fat_tree(1, tp * tp_2d), e);
}

// What one GPU sent: on one NVSwitch every byte crosses its sender's uplink and its receiver's
// downlink, and every GPU sends alike, so the NVLink tier's bytes over 2 x GPUs.
double sent_per_gpu(const Scenario& s, const Outcome& run) {
  LoadedScenario loaded = build_unguarded(s);
  auto tiers = summarize_links(loaded.topology, run.result.channel_bytes, run.result.step_time);
  auto nvlink = std::find_if(tiers.begin(), tiers.end(),
                             [](const TierLoad& t) { return t.tier == "nvlink"; });
  EXPECT_NE(nvlink, tiers.end());
  return nvlink == tiers.end() ? 0.0 : nvlink->bytes.value() / (2.0 * s.execution.gpus());
}

TEST(TwoDimensionalTp, EachGpuMovesThePapersBytes) {
  // tp 2 x tp_2d 2. The paper's V = 2[IJ(N_K-1) + KJ(N_I-1) + IK(N_J-1)] words per matmul,
  // each GPU moving V / (N_I N_J N_K), with I = 4096 tokens and N_I = 1 (no DP term):
  //   up   (J = d = 4096,   K = d_ff = 16384, N_K = tp = 2,    N_J = tp_2d = 2):
  //        2[4096 x 4096 + 4096 x 16384] / 4 = 41,943,040 words
  //   down (J = d_ff,       K = d,            N_K = tp_2d = 2, N_J = tp = 2): the same.
  // Per layer 83,886,080 words x 2 B = 167,772,160 B; 2 layers 335,544,320 B per GPU.
  Scenario s = one_node(2, 2);
  EXPECT_DOUBLE_EQ(sent_per_gpu(s, simulate(s)), 335544320.0);
  // Overlapped, the same collectives go in 4 splits: the same bytes.
  s.execution.tp_overlap = true;
  EXPECT_DOUBLE_EQ(sent_per_gpu(s, simulate(s)), 335544320.0);
  // tp 4 x tp_2d 2: per GPU 2[I d (4-1) + I f (2-1)] / 8 per matmul, twice per layer:
  // 2 x 2 x (4096 x 4096 x 3 + 4096 x 16384) / 8 x 2 B x 2 layers = 234,881,024 B.
  Scenario wide = one_node(4, 2);
  EXPECT_DOUBLE_EQ(sent_per_gpu(wide, simulate(wide)), 234881024.0);
}

TEST(TwoDimensionalTp, TheClosedFormAgreesWhereNothingContends) {
  // One node: every ring has its own NVLink links, so the simulated step is the closed form's
  // sum of kernels and collectives (models/step_program.cpp and models/closed_form.cpp price the
  // same ops), fast and fine, and with TP overlap the simulator cannot beat the bound.
  for (auto [tp, tp_2d] : {std::pair{2, 2}, std::pair{4, 2}, std::pair{1, 4}}) {
    Scenario s = one_node(tp, tp_2d);
    for (auto fidelity : {sim::Fidelity::fast, sim::Fidelity::fine}) {
      Outcome run = simulate(s, fidelity);
      double step = run.result.step_time.value(), bound = run.summary.bound.value();
      EXPECT_NEAR(step, bound, 0.02 * bound) << tp << " x " << tp_2d;
      EXPECT_GT(category(run.summary, "tp_comm"), 0.0);
    }
    s.execution.tp_overlap = true;
    Outcome overlapped = simulate(s);
    EXPECT_GE(overlapped.result.step_time.value(), overlapped.summary.bound.value() * (1 - 1e-9));
  }
}

TEST(TwoDimensionalTp, AcrossNodesEachAxisOverlapsOnAStreamOfItsOwn) {
  // tp 2 x tp_2d 2 on 2 nodes of 2 GPUs: the second axis inside each node (NVLink 450 GB/s),
  // the first across them (the NIC's 50 GB/s), links without latency, kernels of no
  // measurable time (1e30 FLOP/s, 1e30 B/s), one MLP layer, tp_overlap. Per split (a quarter):
  //   hidden all-reduce over tp_2d, n = kHiddenBytes; over 2 GPUs each sends n:
  //     a = n / 4 / 450e9 = 37.28 us;
  //   output all-reduce over tp, n = kOutputBytes: b = n / 4 / 50e9 = 83.89 us.
  // Fine mode, each pass (forward; backward the same shape): down's split j waits for hidden
  // split j, then starts output split j on the first axis's stream, which runs behind the
  // previous one: the pass ends at a + 4b, both streams side by side. (Queued on one stream,
  // as inside one node, it would be 4a + 4b.) Fast mode folds the pass into one block's
  // pipeline, the same a + 4b. Both are at least the bound's longer axis, 4b a pass.
  topo::FatTreeParams links = fat_tree(2, 2);
  links.nvlink_latency = links.pcie_latency = links.network_latency = Seconds(0);
  GpuSpec fast_gpu = gpu();
  fast_gpu.peak = FlopPerSecond(1e30);
  fast_gpu.hbm_bandwidth = BytesPerSecond(1e30);
  ExecutionSpec e{.tp = 2, .tp_2d = 2, .global_batch = 1};
  e.tp_overlap = true;
  Scenario s = scenario(links, e, mlp(1), fast_gpu);
  const double a = kHiddenBytes / 4 / 450e9, b = kOutputBytes / 4 / 50e9;
  Outcome fine = simulate(s, sim::Fidelity::fine);
  EXPECT_NEAR(fine.result.step_time.value(), 2 * (a + 4 * b), 1e-3 * b);
  Outcome fast = simulate(s, sim::Fidelity::fast);
  EXPECT_NEAR(fast.result.step_time.value(), 2 * (a + 4 * b), 1e-3 * b);
  EXPECT_NEAR(fast.summary.bound.value(), 2 * 4 * b, 1e-3 * b);
}

TEST(TwoDimensionalTp, FastModeLeavesOnlyTheOutputsReductionAfterThePipeline) {
  // The setting above with kernels of some time: a GPU of a tenth of the H100's peak, whose
  // MLP block takes k = 2 x 4096 x 4096 x 16384 x 2 / 4 FLOP / (98.9 TFLOP/s x 0.8) = 3.47 ms,
  // up and down half each; a split u = k / 8 = 434 us. NVLink 100 GB/s makes a split of the
  // hidden all-reduce a = kHiddenBytes / 4 / 100e9 = 168 us, longer than one of the output's,
  // b = 83.9 us; both are shorter than u, so each hides behind a kernel split but the last.
  // Fine mode, forward: up's splits end at 4u; down's split j waits for hidden split j, which
  // ended at (j+1)u + a <= (4+j)u; output split j starts after down's, at (5+j)u: the pass
  // ends at 8u + b. Backward: down's gradients in splits of 2u, up's input gradient in splits
  // of u (up's weight gradient, 4u, follows beside the collectives): 8u + 4u + 4u = 16u, the
  // last output split long done. Step: 24u + b + the optimizer step. Fast mode folds each
  // pass into one block's pipeline, the same; before commit 53c8814 it ended the forward at
  // 8u + a, the hidden split after the last.
  topo::FatTreeParams links = fat_tree(2, 2);
  links.nvlink_latency = links.pcie_latency = links.network_latency = Seconds(0);
  links.nvlink_bandwidth = BytesPerSecond(100e9);
  GpuSpec slow = gpu();
  slow.peak = FlopPerSecond(98.9e12);
  ExecutionSpec e{.tp = 2, .tp_2d = 2, .global_batch = 1};
  e.tp_overlap = true;
  Scenario s = scenario(links, e, mlp(1), slow);
  const double u = kernel_time(layer_costs(s.model, e).mlp, slow).value() / 8;
  const double a = kHiddenBytes / 4 / 100e9, b = kOutputBytes / 4 / 50e9;
  ASSERT_LT(b, a);
  ASSERT_LT(a, u);
  const double step = 24 * u + b + optimizer_time(s, 0).total().value();
  EXPECT_NEAR(simulate(s, sim::Fidelity::fine).result.step_time.value(), step, 1e-3 * b);
  EXPECT_NEAR(simulate(s, sim::Fidelity::fast).result.step_time.value(), step, 1e-3 * b);
}

// Bundled (each node's GPU 0 running for its 8 rails) and every GPU's own flows give the same
// step, breakdowns and link bytes.
void expect_bundling_changes_nothing(const Scenario& s) {
  LoadedScenario loaded = build_unguarded(s);
  sim::SimOptions o;
  sim::SimResult bundled = sim::simulate(loaded.scenario, loaded.topology, o);
  o.bundle_rails = false;
  sim::SimResult flows = sim::simulate(loaded.scenario, loaded.topology, o);
  EXPECT_EQ(bundled.rail_bundle, 8);
  expect_same_step(bundled, flows);
}

topo::FatTreeParams rails(int nodes) {
  topo::FatTreeParams fabric = fat_tree(nodes);
  fabric.rail_optimized = true;
  fabric.ecmp = "rail";
  return fabric;
}

TEST(TwoDimensionalTp, RailBundlingGivesThePerFlowResultWithABlockPerNode) {
  // Two nodes of 8 = one TP block of tp 4 x tp_2d 2 each, DP 2 across them on rail-symmetric
  // routes: bundled, each node's GPU 0 runs both axes' rings alone on the node's NVLink.
  ExecutionSpec e{.dp = 2, .tp = 4, .tp_2d = 2, .global_batch = 4};
  for (bool overlap : {false, true}) {
    e.tp_overlap = overlap;
    expect_bundling_changes_nothing(scenario(rails(2), e));
  }
}

TEST(TwoDimensionalTp, RailBundlingGivesThePerFlowResultWithTheFirstAxisAcrossNodes) {
  // tp 2 x tp_2d 8 on nodes of 8: the second axis is the node, the first pairs GPU k of two
  // nodes, as a DP ring does; DP 2 over 4 nodes. Bundled, the second axis runs alone and the
  // first as flows among rail-0 GPUs; overlapped, a split of the first axis queues on the TP
  // stream behind the second axis's, and the folded pass interleaves the two.
  ExecutionSpec e{.dp = 2, .tp = 2, .tp_2d = 8, .global_batch = 4};
  for (bool overlap : {false, true}) {
    e.tp_overlap = overlap;
    expect_bundling_changes_nothing(scenario(rails(4), e));
  }
  e.tp_overlap = e.sequence_parallel = true;
  expect_bundling_changes_nothing(scenario(rails(4), e));
}

} // namespace
} // namespace trainsim
