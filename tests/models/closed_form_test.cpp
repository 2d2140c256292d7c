#include "models/closed_form.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "models/step_compute.hpp"
#include "models/workload.hpp"

namespace trainsim {
namespace {

// A GPU with round numbers: 1 TFLOP/s sustained, 1 TB/s HBM, 1 us per kernel.
GpuSpec round_gpu() {
  GpuSpec g;
  g.peak = FlopPerSecond(1e12);
  g.matmul_efficiency = 1.0;
  g.hbm_bandwidth = BytesPerSecond(1e12);
  g.kernel_latency = Seconds(1e-6);
  return g;
}

// MLP blocks, d_model 1000, d_ff 4000, 1000-token sequences, BF16.
Scenario mlp_scenario(int layers, int dp, int tp, int pp, long global_batch) {
  Scenario s;
  s.model.kind = ModelKind::mlp;
  s.model.layers = layers;
  s.model.d_model = 1000;
  s.model.d_ff = 4000;
  s.model.seq_len = 1000;
  s.system.gpu = round_gpu();
  s.execution.dp = dp;
  s.execution.tp = tp;
  s.execution.pp = pp;
  s.execution.global_batch = global_batch;
  s.execution.micro_batch = 1;
  return s;
}

// The fabric of these tests: nodes of `domain` GPUs on NVLink at 450 GB/s and 1 us per pair
// (GPU -> NVSwitch -> GPU, 0.5 us a hop), joined by a network of 50 GB/s and 2 us per pair
// (GPU -> NIC -> leaf -> NIC -> GPU, 0.5 us a hop).
const PairCost kNvlink{Seconds(1e-6), BytesPerSecond(450e9), "nvlink"};
const PairCost kNetwork{Seconds(2e-6), BytesPerSecond(50e9), "leaf"};

BoundResult bound(const Scenario& s, int domain = 8, PairCost nvlink = kNvlink) {
  return closed_form_bound(
      s, summarize_fabric(s.execution, two_tier_pairs(domain, nvlink, kNetwork), domain));
}

Seconds term(const BoundResult& b, const std::string& name) {
  for (const BoundTerm& t : b.terms)
    if (t.name == name) return t.time;
  ADD_FAILURE() << "no term " << name;
  return Seconds(0);
}

TEST(ClosedForm, SingleGpuIsComputePlusLaunches) {
  // 1000 tokens per microbatch. MLP forward: up 2*1000*1000*4000 = 8e9 FLOP, down 8e9:
  // 1.6e10 FLOP = 16 ms at 1e12 FLOP/s; HBM (4e6 + 5e6) * 2 B * 2 matmuls = 3.6e7 B = 36 us,
  // so compute-bound. Backward 32 ms as two kernels (input and weight gradients).
  // 2 layers x 4 microbatches x (16 + 32) ms = 384 ms, plus 2 layers x 4 microbatches x
  // 3 kernels x 1 us = 24 us of launches.
  BoundResult b = bound(mlp_scenario(2, 1, 1, 1, 4));
  EXPECT_NEAR(term(b, "compute").value(), 0.384, 1e-12);
  EXPECT_NEAR(term(b, "latency").value(), 24e-6, 1e-15);
  EXPECT_EQ(term(b, "hbm").value(), 0.0);
  EXPECT_EQ(term(b, "network").value(), 0.0);
  EXPECT_EQ(term(b, "pipeline_bubble").value(), 0.0);
  EXPECT_EQ(term(b, "dp_allreduce").value(), 0.0);
  EXPECT_NEAR(b.step_time.value(), 0.384024, 1e-12);
  EXPECT_EQ(b.limiting, "compute");
}

TEST(ClosedForm, TwoByTwoByTwoGridAddsRingsBubbleAndGradients) {
  // dp 2, tp 2, pp 2, 2 layers (one per stage), 8 sequences -> m = 8 / (2 * 1) = 4.
  // Per stage and microbatch: forward kernel 8e9 FLOP (half of 1.6e10) = 8 ms + 1 us,
  // backward two kernels of 8 ms + 1 us. TP ring all-reduce of 1000 x 1000 x 2 B = 2e6 B
  // over p = 2 inside one NVLink domain (alpha = 2 hops x 0.5 us = 1 us, B = 450e9 B/s):
  // 2(p-1) = 2 steps: latency 2 us, bandwidth 2 x 2e6 / (2 x 450e9) = 4.444 us; one
  // all-reduce each way. f = 8 ms + 7.444 us, b = 16 ms + 8.444 us.
  // Send between stages s = 1 us + 2e6 / 450e9 = 5.444 us.
  // DP ring: gradients 2 * 1000 * 4000 / 2 params x 2 B = 8e6 B over 2 ranks:
  // 2 us + 2 x 8e6 / (2 x 450e9) = 19.778 us.
  // 1F1B, stage 0 runs F0 F1 B0 F2 B1 F3 B2 B3, stage 1 F0 B0 F1 B1 ... B3. Walking it:
  // stage 0's B0 starts at 2f+b+2s (its gradient went through stage 1's F0 B0 and two
  // sends), B1 at 3f+2b+2s, B2 at 4f+3b+4s (stage 1's F2 waited for stage 0's F2, which
  // followed B0), B3 at 5f+4b+4s: stage 0 ends at 5(f+b) + 4s, stage 1 at 5f+4b+4s.
  // Critical: stage 0, its own 4(f+b) plus a bubble of f + b + 4s, then DP.
  BoundResult b = bound(mlp_scenario(2, 2, 2, 2, 8));
  double ring_bw = 2.0 * 2e6 / (2.0 * 450e9);
  double fwd = 8e-3 + 1e-6 + 2e-6 + ring_bw, bwd = 16e-3 + 2e-6 + 2e-6 + ring_bw;
  double send = 1e-6 + 2e6 / 450e9, dp = 2e-6 + 2.0 * 8e6 / (2.0 * 450e9);
  EXPECT_NEAR(term(b, "compute").value(), 4 * 24e-3, 1e-12);
  EXPECT_NEAR(term(b, "latency").value(), 4 * (3 * 1e-6 + 2 * 2e-6), 1e-12);
  EXPECT_NEAR(term(b, "network").value(), 4 * 2 * ring_bw, 1e-12);
  EXPECT_NEAR(term(b, "pipeline_bubble").value(), fwd + bwd + 4 * send, 1e-12);
  EXPECT_NEAR(term(b, "dp_allreduce").value(), dp, 1e-12);
  EXPECT_NEAR(b.step_time.value(), 5 * (fwd + bwd) + 4 * send + dp, 1e-12);
  EXPECT_EQ(b.critical_stage, 0);
  EXPECT_EQ(b.limiting, "compute");
}

TEST(ClosedForm, FreeSendsLeaveTheTextbookBubble) {
  // 4 stages of one layer, 8 microbatches, sends at no cost (no hop latency, unbounded
  // NVLink): 1F1B takes (m + pp - 1)(f + b), the bubble being (pp - 1)(f + b), with
  // f = 16 ms + 1 us and b = 32 ms + 2 us (two kernels).
  BoundResult b =
      bound(mlp_scenario(4, 1, 1, 4, 8), 8, PairCost{Seconds(0), BytesPerSecond(1e300), "nvlink"});
  double stage = 48e-3 + 3e-6;
  EXPECT_NEAR(b.step_time.value(), (8 + 4 - 1) * stage, 1e-12);
  EXPECT_NEAR(term(b, "pipeline_bubble").value(), 3 * stage, 1e-12);
}

TEST(ClosedForm, UnevenStagesWithOneMicrobatchTakeTheRoundTrip) {
  // 5 layers on 3 stages (2, 2, 1), dp 2, m = 1: F of every stage, B of every stage back,
  // 4 sends, then stage 0's DP all-reduce (it finishes last). Per layer f = 16 ms + 1 us,
  // b = 32 ms + 2 us; send 1 us + 2e6 / 450e9; stage 0's gradients 2 layers x 8e6 params x
  // 2 B over 2 ranks: 2 us + 2 x 3.2e7 / (2 x 450e9).
  BoundResult b = bound(mlp_scenario(5, 2, 1, 3, 2));
  double f = 16e-3 + 1e-6, bw = 32e-3 + 2e-6, send = 1e-6 + 2e6 / 450e9,
         dp = 2e-6 + 2.0 * 3.2e7 / (2.0 * 450e9);
  EXPECT_NEAR(b.step_time.value(), 5 * f + 5 * bw + 4 * send + dp, 1e-12);
  EXPECT_EQ(b.critical_stage, 0);
}

// One MoE layer of 2 experts, one per GPU: ep = dp = 2, one microbatch each.
Scenario two_experts_over_two_gpus() {
  Scenario s = mlp_scenario(1, 2, 1, 1, 2);
  s.model.experts = 2;
  s.execution.ep = 2;
  return s;
}

TEST(ClosedForm, ExpertParallelismAddsFourAllToAllsPerLayer) {
  // 2 experts over ep = dp = 2, one layer, m = 2 / (2 x 1) = 1. Each all-to-all moves the
  // microbatch's 1000 tokens x 1000 x 2 B = 2e6 B: p - 1 = 1 round of alpha + 2e6 / (2 B),
  // on the cheaper tier (alpha 1 us, B = 450e9) because the group fits in a node. One before
  // and one after the expert kernel, each way: 4 rounds. Every MLP weight is an expert's and
  // dp / ep = 1, so there is no gradient reduction.
  BoundResult b = bound(two_experts_over_two_gpus());
  EXPECT_NEAR(term(b, "network").value(), 4 * 2e6 / (2 * 450e9), 1e-15);
  EXPECT_NEAR(term(b, "latency").value(), 3 * 1e-6 + 4 * 1e-6, 1e-15);
  EXPECT_EQ(term(b, "dp_allreduce").value(), 0.0);
}

TEST(ClosedForm, AnAllToAllAcrossNodesPaysTheNetworkInEveryRound) {
  // The same layer with one GPU per node: the one round of each all-to-all pays the network
  // path's alpha (2 us) and 2e6 / (2 x 50e9); 4 rounds. The verdict names the network's tier.
  BoundResult b = bound(two_experts_over_two_gpus(), 1);
  EXPECT_NEAR(term(b, "network").value(), 4 * 2e6 / (2 * 50e9), 1e-15);
  EXPECT_NEAR(term(b, "latency").value(), 3 * 1e-6 + 4 * 2e-6, 1e-15);
  EXPECT_EQ(b.limiting, "compute");
}

TEST(ClosedForm, Zero3GathersParametersInEveryPassInsteadOfAFinalAllReduce) {
  // dp 2, m = 1, one layer of 8e6 parameters = 1.6e7 B: one all-gather phase before the
  // forward, an all-gather and a reduce-scatter around the backward: 3 phases of
  // 1 us + 1.6e7 / (2 x 450e9); nothing left to reduce at the end.
  Scenario s = mlp_scenario(1, 2, 1, 1, 2);
  s.execution.zero = 3;
  BoundResult b = bound(s);
  EXPECT_NEAR(term(b, "network").value(), 3 * 1.6e7 / (2 * 450e9), 1e-15);
  EXPECT_NEAR(term(b, "latency").value(), 3 * 1e-6 + 3 * 1e-6, 1e-15);
  EXPECT_EQ(term(b, "dp_allreduce").value(), 0.0);
}

TEST(ClosedForm, OverlappedGradientsCountOnlyTheLastBucket) {
  // 4 layers of 8e6 parameters = 1.6e7 B of gradients each, dp 2, buckets of 2e7 B: the last
  // backward pass closes a bucket after layer 2 (3.2e7 >= 2e7) and the rest, layers 3 and 4,
  // at its end. Only that last bucket must follow the pass: an all-reduce of 3.2e7 B over 2
  // ranks in one node, 2 x (1 us + 3.2e7 / (2 x 450e9)) = 2 us + 71.11 us.
  Scenario s = mlp_scenario(4, 2, 1, 1, 2);
  s.execution.dp_overlap = true;
  s.execution.dp_bucket = Bytes(2e7);
  EXPECT_NEAR(term(bound(s), "dp_allreduce").value(), 2e-6 + 2 * 3.2e7 / (2 * 450e9), 1e-15);
  // With ZeRO-1 the last bucket is reduce-scattered, and then every parameter all-gathered:
  // (1 us + 3.2e7 / (2 x 450e9)) + (1 us + 6.4e7 / (2 x 450e9)).
  s.execution.zero = 1;
  EXPECT_NEAR(term(bound(s), "dp_allreduce").value(), 2e-6 + (3.2e7 + 6.4e7) / (2 * 450e9), 1e-15);
  // Buckets of 4e7 B. BF16: layers of 1.6e7 B, a bucket closes after layer 3 (4.8e7 B), the
  // last holds layer 4: 1.6e7 B. FP32 gradients: layers of 3.2e7 B, a bucket closes after
  // layer 2 (6.4e7 B) and the last holds layers 3 and 4, 6.4e7 B; the parameters gathered back
  // stay at BF16, 6.4e7 B: (1 us + 6.4e7 / 900e9) twice.
  s.execution.dp_bucket = Bytes(4e7);
  EXPECT_NEAR(term(bound(s), "dp_allreduce").value(), 2e-6 + (1.6e7 + 6.4e7) / (2 * 450e9), 1e-15);
  s.execution.fp32_gradients = true;
  EXPECT_NEAR(term(bound(s), "dp_allreduce").value(), 2e-6 + (6.4e7 + 6.4e7) / (2 * 450e9), 1e-15);
}

TEST(ClosedForm, EarlyParameterGathersLeaveTheBound) {
  // dp 2 in one node, ZeRO-1, 4 layers of 1.6e7 B of gradients: after the passes a
  // reduce-scatter of 6.4e7 B, 1 us + 6.4e7 / (2 x 450e9), and the parameters' all-gather of
  // as much. With param_gather_overlap the gather starts with the step and runs beside the
  // forwards that wait for it: only what it outlasts the passes by counts, here nothing.
  Scenario s = mlp_scenario(4, 2, 1, 1, 2);
  s.execution.zero = 1;
  EXPECT_NEAR(term(bound(s), "dp_allreduce").value(), 2e-6 + 2 * 6.4e7 / (2 * 450e9), 1e-15);
  s.execution.param_gather_overlap = true;
  EXPECT_NEAR(term(bound(s), "dp_allreduce").value(), 1e-6 + 6.4e7 / (2 * 450e9), 1e-15);
}

TEST(ClosedForm, ADelayedUpdateCountsOnlyTheReductionThatOutlastsThePasses) {
  // dp 2 in one node, 4 layers, one microbatch: the passes take 4 x (16 + 32) ms + 12
  // launches of 1 us = 192.012 ms; the reduction of 4 x 1.6e7 B, 2 x (1 us + 6.4e7 /
  // (2 x 450e9)) = 144.2 us, runs beside them from the step's start and adds nothing.
  Scenario s = mlp_scenario(4, 2, 1, 1, 2);
  s.execution.delayed_update = true;
  BoundResult hidden = bound(s);
  EXPECT_EQ(term(hidden, "dp_allreduce").value(), 0.0);
  EXPECT_NEAR(hidden.step_time.value(), 0.192012, 1e-12);
  // 5-token sequences, DP over the network (nodes of one GPU): the passes shrink 200-fold
  // and the reduction grows to 2 x (2 us + 6.4e7 / (2 x 50e9)) = 1.284 ms, which outlasts
  // them: the step is the reduction, and the term what it adds to the passes.
  s.model.seq_len = 5;
  s.execution.delayed_update = false;
  BoundResult serial = bound(s, 1);
  Seconds reduction = term(serial, "dp_allreduce"), passes = serial.step_time - reduction;
  EXPECT_NEAR(reduction.value(), 2 * (2e-6 + 6.4e7 / (2 * 50e9)), 1e-12);
  ASSERT_GT(reduction, passes);
  s.execution.delayed_update = true;
  BoundResult exposed = bound(s, 1);
  EXPECT_NEAR(exposed.step_time.value(), reduction.value(), 1e-12);
  EXPECT_NEAR(term(exposed, "dp_allreduce").value(), (reduction - passes).value(), 1e-12);
}

TEST(ClosedForm, RecomputationRunsTheForwardAgainInTheBackward) {
  // One layer, one microbatch: forward 16 ms, backward 3 kernels of 16 ms; 4 launches.
  Scenario s = mlp_scenario(1, 1, 1, 1, 1);
  s.execution.recompute = Recompute::full;
  BoundResult b = bound(s);
  EXPECT_NEAR(term(b, "compute").value(), 64e-3, 1e-12);
  EXPECT_NEAR(term(b, "latency").value(), 4e-6, 1e-15);
}

TEST(ClosedForm, GroupsThatCrossNodesPayTheNetwork) {
  // Same TP ring as above but over the NIC: alpha = 4 hops x 0.5 us = 2 us, B = 50e9:
  // per all-reduce 2 x 2 us latency and 2 x 2e6 / (2 x 50e9) = 40 us bandwidth.
  BoundResult b = bound(mlp_scenario(1, 1, 2, 1, 1), 1);
  EXPECT_NEAR(term(b, "network").value(), 2 * 40e-6, 1e-12);
  EXPECT_NEAR(term(b, "latency").value(), 3 * 1e-6 + 2 * 4e-6, 1e-12);
  // Full recomputation runs the forward's all-reduce again: 3 x 40 us.
  Scenario again = mlp_scenario(1, 1, 2, 1, 1);
  again.execution.recompute = Recompute::full;
  EXPECT_NEAR(term(bound(again, 1), "network").value(), 3 * 40e-6, 1e-12);
  // A TP group larger than a node crosses nodes: its ring runs at the pace of the crossing pair.
  BoundResult wide = bound(mlp_scenario(1, 1, 16, 1, 1));
  EXPECT_NEAR(term(wide, "latency").value(), 3 * 1e-6 + 2 * (2 * 15 * 2e-6), 1e-12);
}

TEST(ClosedForm, OverlappedTpCollectivesPayEachSplitBesideTheKernelsAfterIt) {
  // tp_overlap in 4 splits, tp 16 over two nodes, 5-token sequences: the program runs each
  // pass's kernel in 4 splits and starts a quarter of the all-reduce (n = 5 x 1000 x 2 B =
  // 1e4 B) after each. Each quarter runs as 8 rings side by side (a channel per member's
  // NIC, models/layout.hpp), each at the crossing pair's pace: 2 x 15 steps of 2 us and
  // 2 x 15 x 2.5e3 / (16 x 8 x 50e9) s, c = 60.01171875 us. The first kernel split runs before
  // anything starts; the other three (and, backward, the weight gradient W kept whole) run
  // beside the four quarters: forward K_f / 4 + max(3 K_f / 4, 4c), backward
  // (K_b - W) / 4 + max(3 (K_b - W) / 4 + W, 4c). Here the stream is the longer both ways.
  Scenario s = mlp_scenario(1, 1, 16, 1, 1);
  s.model.seq_len = 5;
  s.execution.tp_collective = "ring";
  s.execution.tp_overlap = true;
  s.execution.tp_overlap_splits = 4;
  BlockTime mlp = layer_times(s).mlp;
  double kf = mlp.forward.total().value(), kb = mlp.backward.total().value();
  double w = mlp.beside_collective.total().value();
  double c = 30 * 2e-6 + 30 * 2.5e3 / (16 * 8 * 50e9);
  ASSERT_GT(4 * c, 0.75 * kf);
  ASSERT_GT(4 * c, 0.75 * (kb - w) + w);
  EXPECT_NEAR(bound(s).step_time.value(), kf / 4 + (kb - w) / 4 + 8 * c, 1e-12);
}

TEST(ClosedForm, TransformerLayerAddsTheAttentionKernel) {
  // The roofline transformer (model.compute: roofline): attention on 1000 tokens, d 1000,
  // seq 1000: QKV 2*1000*1000*3000 = 6e9, output 2e9, scores + values 4*1000*1000*1000 = 4e9
  // -> 1.2e10 FLOP = 12 ms; MLP 16 ms. One layer, one microbatch, forward + backward =
  // 3 x 28 ms = 84 ms; 2 kernels forward, 4 backward = 6 us.
  Scenario s = mlp_scenario(1, 1, 1, 1, 1);
  s.model.kind = ModelKind::transformer;
  s.model.compute = ComputeModel::roofline;
  BoundResult b = bound(s);
  EXPECT_NEAR(term(b, "compute").value(), 84e-3, 1e-12);
  EXPECT_NEAR(term(b, "latency").value(), 6e-6, 1e-15);
}

// The transformer priced per operator on the round GPU (no SM count, no attention table:
// GEMMs and attention at 1 TFLOP/s, streaming kernels at 1 TB/s), one head of 1000.
Scenario operator_scenario() {
  Scenario s = mlp_scenario(1, 1, 1, 1, 1);
  s.model.kind = ModelKind::transformer;
  return s;
}

TEST(ClosedForm, OperatorsPriceEveryKernelOfTheLayerAndTheOptimizerStep) {
  // 1000 tokens, d 1000, d_ff 4000, BF16 (an activation T x d is 2e6 B). Forward GEMMs: QKV
  // 6e9, out 2e9, fc1 8e9, fc2 8e9 FLOP; causal attention 2 T s d = 2e9: 26 ms. Backward:
  // twice the GEMMs and 2.5 x attention: 53 ms. Forward streaming kernels: 2 norms of 4e6 B,
  // 2 bias-dropout-adds of 3 x 2e6 + 1e6 B, GeLU 2 x 1000 x 4000 x 2 B = 1.6e7 B: 38 us.
  // Backward: 2 norm gradients of 6e6 B, 2 dropout gradients of 5e6 B, 2 bias gradients of 2e6
  // B, 2 residual gradients of 6e6 B, the QKV bias gradient 1000 x 3000 x 2 B = 6e6 B, GeLU's
  // 2.4e7 B: 68 us. Then the optimizer step on 1.2e7 parameters x 42 B (BF16: gradient norm
  // 4, Adam 28, copy 6, zeroing 4) = 5.04e8 B: 504 us. Kernels: 10 forward, 19 backward, 4
  // optimizer: 33 us.
  BoundResult b = bound(operator_scenario());
  EXPECT_NEAR(term(b, "compute").value(), 79e-3, 1e-12);
  EXPECT_NEAR(term(b, "hbm").value(), (38 + 68 + 504) * 1e-6, 1e-12);
  EXPECT_NEAR(term(b, "latency").value(), 33e-6, 1e-15);
}

TEST(ClosedForm, Fp8WeightCastsArePricedOnceAStep) {
  // The layer above with FP8 (tensorwise: 6 B an element) linear layers. Its weights, 3e6 +
  // 1e6 + 4e6 + 4e6 = 1.2e7 elements, are cast once a step: 7.2e7 B, 72 us of HBM. Every
  // other HBM kernel runs once a microbatch, so with h(m) the HBM term over m microbatches,
  // h(1) - (h(3) - h(1)) / 2 is what runs once a step: the casts and the optimizer's 504 us.
  Scenario s = operator_scenario();
  s.model.fp8_recipe = Fp8Recipe::tensorwise;
  double one = term(bound(s), "hbm").value();
  s.execution.global_batch = 3;
  double three = term(bound(s), "hbm").value();
  EXPECT_NEAR(one - (three - one) / 2.0, (72 + 504) * 1e-6, 1e-12);
}

TEST(ClosedForm, AVocabularyAddsEmbeddingHeadAndTheirOptimizerState) {
  // Vocabulary 1000, one stage, one microbatch. Embedding forward: rows 2e6 B read, output
  // 2e6 B written, learned positions added (6e6 B); backward 6e6 + 2e6 B: 18 us, 4 kernels.
  // Head: final norm 4e6 B, logits GEMM 2 x 1000 x 1000 x 1000 = 2e9 FLOP, softmax +
  // cross-entropy 2 x 1000 x 1000 x 2 B = 4e6 B; backward 4e6 B, two GEMMs of 2e9, norm
  // gradient 6e6 B: 6 ms and 18 us, 3 kernels forward and 4 backward. The optimizer step on
  // 1e6 + 1e6 (positions) + 1e6 more parameters at 42 B: 1.26e8 B, 126 us.
  Scenario s = operator_scenario();
  BoundResult plain = bound(s);
  s.model.vocab = 1000;
  BoundResult with = bound(s);
  EXPECT_NEAR((term(with, "compute") - term(plain, "compute")).value(), 6e-3, 1e-12);
  EXPECT_NEAR((term(with, "hbm") - term(plain, "hbm")).value(), (18 + 18 + 126) * 1e-6, 1e-12);
  EXPECT_NEAR((term(with, "latency") - term(plain, "latency")).value(), 11e-6, 1e-15);
}

TEST(ClosedForm, ContextParallelismHalvesTheWorkAndGathersKeysAndValues) {
  // cp 2 on GPUs one per node: each rank holds 500 of the 1000 tokens, so every GEMM, and the
  // attention core (500 queries against 1000 keys, causal and balanced), does half of
  // OperatorsPrice...'s work: 79 / 2 = 39.5 ms. Per layer the K/V all-gather (K and V of the
  // whole sequence, 2 x 1000 x 1000 x 2 B = 4e6 B) runs forward and backward and the
  // reduce-scatter of their gradients backward, each one ring step over the network of 2 us
  // and 4e6 / (2 x 50e9) s = 40 us: 3 x 40 us.
  Scenario s = operator_scenario();
  s.execution.cp = 2;
  BoundResult b = bound(s, 1);
  EXPECT_NEAR(term(b, "compute").value(), 39.5e-3, 1e-12);
  EXPECT_NEAR(term(b, "network").value(), 3 * 40e-6, 1e-12);
  EXPECT_NE(format_bound(b).find("CP key/value gathers"), std::string::npos);
  // The two CP ranks hold the same weights: their gradients (1.2e7 x 2 B) are all-reduced
  // between them, 2 x (2 us + 2.4e7 / (2 x 50e9)) = 484 us.
  EXPECT_NEAR(term(b, "dp_allreduce").value(), 484e-6, 1e-12);
  // The model's FLOP do not depend on how the sequence is split.
  EXPECT_DOUBLE_EQ(b.model_flop.value(), bound(operator_scenario(), 1).model_flop.value());
}

TEST(ClosedForm, SelectiveRecomputationRunsTheAttentionCoreAgain) {
  // The attention core's forward again in the backward: 2e9 FLOP = 2 ms and one launch.
  Scenario s = operator_scenario();
  BoundResult plain = bound(s);
  s.execution.recompute = Recompute::selective;
  BoundResult selective = bound(s);
  EXPECT_NEAR((term(selective, "compute") - term(plain, "compute")).value(), 2e-3, 1e-12);
  EXPECT_NEAR((term(selective, "latency") - term(plain, "latency")).value(), 1e-6, 1e-15);
}

TEST(ClosedForm, HbmBoundKernelsAreCountedAsHbm) {
  // 1 token per microbatch: MLP forward FLOP 2 * 2*1*1000*4000 = 1.6e7 -> 16 us; HBM
  // weights 2 x 4e6 x 2 B + activations 2 x 5000 x 2 B = 1.602e7 B -> 16.02 us: HBM-bound.
  Scenario s = mlp_scenario(1, 1, 1, 1, 1);
  s.model.seq_len = 1;
  BoundResult b = bound(s);
  EXPECT_NEAR(term(b, "hbm").value(), 3 * 16.02e-6, 1e-12);
  EXPECT_EQ(term(b, "compute").value(), 0.0);
  EXPECT_EQ(b.limiting, "hbm");
}

TEST(ClosedForm, TextNamesEveryTermAndTheLimitingOne) {
  std::string text = format_bound(bound(mlp_scenario(2, 2, 2, 2, 8)));
  for (const char* name :
       {"compute", "hbm", "latency", "network", "pipeline_bubble", "dp_allreduce"})
    EXPECT_NE(text.find(name), std::string::npos) << name;
  EXPECT_NE(text.find("limiting: compute"), std::string::npos);
}

} // namespace
} // namespace trainsim
