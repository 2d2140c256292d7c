// Simulated step times against hand-derived alpha-beta arithmetic, on fabrics where no two
// flows share a link, so the simulation must reproduce the closed form.
#include <gtest/gtest.h>

#include "tests/sim/step_fixtures.hpp"

namespace trainsim {
namespace {

using namespace testing;

constexpr double kSustained = 989e12 * 0.8; // FLOP/s

TEST(Step, TensorParallelStepIsComputePlusRingAllReduces) {
  // One node, TP 8, one microbatch of 4096 tokens, 2 layers.
  // Forward MLP per GPU: 2 matmuls x 2 x 4096 x 4096 x 16384 / 8 = 1.374e11 FLOP -> 173.7 us.
  // (HBM: 2 x (4096 x 16384 + 4096 x 20480) x 2 B / 8 = 75.5 MB -> 22.5 us, not binding.)
  const double t_fwd = 2 * 2.0 * 4096 * 4096 * 16384 / 8 / kSustained;
  // Ring all-reduce of 4096 x 4096 x 2 B over 8 GPUs: 2(p-1) = 14 steps, each one NVSwitch
  // round trip (2 hops x 0.5 us) plus 1/8 of the tensor at 450 GB/s.
  const double ring = 14 * (1e-6 + 4096.0 * 4096 * 2 / 8 / 450e9);
  // Per layer: forward t + ring, backward 2t + ring.
  const double expected = 2 * (3 * t_fwd + 2 * ring);
  for (auto fidelity : {sim::Fidelity::fast, sim::Fidelity::fine}) {
    Outcome run = simulate(scenario(fat_tree(1), {.tp = 8, .global_batch = 1}), fidelity);
    EXPECT_NEAR(run.result.step_time.value(), expected, 0.005 * expected);
  }
}

TEST(Step, DataParallelStepIsComputePlusRingAllReduce) {
  // Each of 4 GPUs runs one microbatch: forward 2 x 2 x 4096 x 4096 x 16384 FLOP = 1.1e12.
  const double t_fwd = 2 * 2.0 * 4096 * 4096 * 16384 / kSustained;
  // Gradients: 2 layers x 2 x 4096 x 16384 parameters x 2 B = 536.9 MB, ring over 4 GPUs:
  // 6 steps of (latency gpu-nic-leaf-nic-gpu = 4 x 0.5 us) + n/4 at 400 Gb/s = 50 GB/s.
  const double gradients = 2 * 2.0 * 4096 * 16384 * 2;
  const double ring = 6 * (2e-6 + gradients / 4 / 50e9);
  const double expected = 2 * 3 * t_fwd + ring;
  Outcome run = simulate(scenario(four_nodes(), {.dp = 4, .global_batch = 4}));
  EXPECT_NEAR(run.result.step_time.value(), expected, 0.005 * expected);
}

TEST(Step, HalvingNetworkBandwidthDoublesTheBandwidthPartOfTheAllReduce) {
  // dp_comm = 6 x latency + 6 x n / (4 B): only the second term scales with 1 / B.
  const double latency_part = 6 * 2e-6;
  auto dp_time = [&](double nic_gbps) {
    topo::FatTreeParams links; // the other links keep the FatTreeParams defaults
    links.nic_bandwidth = BytesPerSecond(nic_gbps * 1e9 / 8);
    links.network_latency = links.pcie_latency = Seconds(0.5e-6);
    return category(simulate(scenario(four_nodes(links), {.dp = 4, .global_batch = 4})).summary,
                    "dp_comm");
  };
  double ratio = (dp_time(200) - latency_part) / (dp_time(400) - latency_part);
  EXPECT_NEAR(ratio, 2.0, 0.01);
}

TEST(Step, OneFOneBBubbleIsPipelineDepthOverMicrobatches) {
  // PP 4 on four nodes with 16 microbatches; the network is made so fast that transfers are
  // negligible. Every stage computes m (t_f + t_b) and waits (PP - 1)(t_f + t_b), so the
  // waiting share of the step is (PP - 1) / (m + PP - 1) = 3 / 19.
  Outcome run = simulate(
      scenario(four_nodes(ideal_fabric()),
               {.pp = 4, .global_batch = 16, .schedule = PipelineSchedule::one_f_one_b}, mlp(8)));
  double waiting = (category(run.summary, "bubble") + category(run.summary, "idle") +
                    category(run.summary, "pp_comm")) /
                   run.result.step_time.value();
  EXPECT_NEAR(waiting, 3.0 / 19.0, 0.01 * 3.0 / 19.0);
}

TEST(Step, DualPipeVHidesHalfA1F1BBubble) {
  // PP 2 x DP 2 on four nodes, 8 layers (2 a chunk), 4 microbatches, transfers negligible.
  // Under DualPipeV stage 1 starts after stage 0's first chunk forward (t_f / 2 of a stage's
  // t_f) and then never waits; stage 0 ends with one chunk backward (t_b / 2) after it
  // (tests/models/pipeline_path_test.cpp walks it): the step is 4 (t_f + t_b) + (t_f + t_b) / 2,
  // and each stage waits (t_f + t_b) / 2 of it, 1/9 of the step. 1F1B waits 1/5.
  for (sim::Fidelity fidelity : {sim::Fidelity::fast, sim::Fidelity::fine}) {
    Outcome run = simulate(
        scenario(four_nodes(ideal_fabric()),
                 {.dp = 2, .pp = 2, .global_batch = 8, .schedule = PipelineSchedule::dualpipev},
                 mlp(8)),
        fidelity);
    double waiting = (category(run.summary, "bubble") + category(run.summary, "idle") +
                      category(run.summary, "pp_comm")) /
                     run.result.step_time.value();
    EXPECT_NEAR(waiting, 1.0 / 9.0, 0.01 / 9.0);
  }
}

TEST(Step, HardwareFlopCountTheRecomputedForward) {
  // MLP blocks: model FLOP are 3 forward passes per layer (forward, two gradients); full
  // recomputation runs a fourth, so HFU = 4/3 MFU, and the FLOP/s per GPU are each times peak.
  Outcome run =
      simulate(scenario(fat_tree(1), {.tp = 8, .global_batch = 1, .recompute = Recompute::full}));
  EXPECT_NEAR(run.summary.hfu, run.summary.mfu * 4.0 / 3.0, 1e-12);
  EXPECT_NEAR(run.summary.model_flop_rate.value(), run.summary.mfu * 989e12,
              1e-3 * run.summary.mfu * 989e12);
  EXPECT_NEAR(run.summary.hardware_flop_rate.value(), run.summary.hfu * 989e12,
              1e-3 * run.summary.hfu * 989e12);
  // Without recomputation the two are the same.
  Outcome plain = simulate(scenario(fat_tree(1), {.tp = 8, .global_batch = 1}));
  EXPECT_EQ(plain.summary.hfu, plain.summary.mfu);
}

TEST(Step, PrefetchedZero3GathersRunBesideThePreviousLayer) {
  // dp 4 on four nodes, ZeRO-3, 2 layers, one microbatch. A layer's forward: t = 2 matmuls x
  // 2 x 4096 x 4096 x 16384 FLOP, its backward 2 t; its parameters, 2 x 4096 x 16384 x 2 B, are
  // gathered (and its gradients reduce-scattered) in 3 ring steps of 2 us + n / 4 at 50 GB/s:
  // g each. Blocking, every collective waits for the kernels before it and they for it:
  // 4 gathers + 2 reductions + the kernels, 6 g + 6 t. Prefetched (g > t here), the DP stream
  // gathers both forward layers back to back (to 2 g), the second forward ends at 2 g + t and
  // only then starts the backward's two gathers; the stream runs them and the two reductions
  // back to back, each backward waiting for its gather: the step ends with the last reduction,
  // at 2 g + t + 4 g = 6 g + t.
  const double t = 2 * 2.0 * 4096 * 4096 * 16384 / kSustained;
  const double g = 3 * (2e-6 + 2.0 * 4096 * 16384 * 2 / 4 / 50e9);
  ExecutionSpec e{.dp = 4, .global_batch = 4, .zero = 3};
  for (auto fidelity : {sim::Fidelity::fast, sim::Fidelity::fine}) {
    Outcome blocking = simulate(scenario(four_nodes(), e), fidelity);
    EXPECT_NEAR(blocking.result.step_time.value(), 6 * g + 6 * t, 0.005 * (6 * g + 6 * t));
    ExecutionSpec prefetching = e;
    prefetching.zero3_prefetch = true;
    Outcome run = simulate(scenario(four_nodes(), prefetching), fidelity);
    EXPECT_NEAR(run.result.step_time.value(), 6 * g + t, 0.005 * (6 * g + t));
  }
}

TEST(Step, BreakdownAddsUpToTheStepTimeOnEveryRank) {
  Outcome run = simulate(scenario(fat_tree(2), {.tp = 8, .pp = 2, .global_batch = 4}));
  for (const auto& r : run.result.ranks) {
    Seconds sum; // every category a rank is charged while it runs (idle comes after)
    for (sim::Category c : sim::kCategories) sum += r[c];
    EXPECT_NEAR(sum.value(), r.finish.value(), 1e-9 * r.finish.value());
  }
}

} // namespace
} // namespace trainsim
