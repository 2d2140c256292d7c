#include "models/closed_form.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "models/schedule.hpp"
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

Seconds term(const BoundResult& b, const std::string& name) {
  for (const BoundTerm& t : b.terms)
    if (t.name == name) return t.time;
  ADD_FAILURE() << "no term " << name;
  return Seconds(0);
}

TEST(ClosedForm, SingleGpuIsComputePlusLaunches) {
  // 1000 tokens per microbatch. MLP forward: up 2*1000*1000*4000 = 8e9 FLOP, down 8e9:
  // 1.6e10 FLOP = 16 ms at 1e12 FLOP/s; HBM (4e6 + 5e6) * 2 B * 2 matmuls = 3.6e7 B = 36 us,
  // so compute-bound. Backward 32 ms. 2 layers x 4 microbatches x (16 + 32) ms = 384 ms,
  // plus 2 layers x 4 microbatches x 2 kernels x 1 us = 16 us of launches.
  BoundResult b = closed_form_bound(mlp_scenario(2, 1, 1, 1, 4), FabricSummary{});
  EXPECT_NEAR(term(b, "compute").value(), 0.384, 1e-12);
  EXPECT_NEAR(term(b, "latency").value(), 16e-6, 1e-15);
  EXPECT_EQ(term(b, "hbm").value(), 0.0);
  EXPECT_EQ(term(b, "tp_network").value(), 0.0);
  EXPECT_EQ(term(b, "pipeline_bubble").value(), 0.0);
  EXPECT_EQ(term(b, "dp_allreduce").value(), 0.0);
  EXPECT_NEAR(b.step_time.value(), 0.384016, 1e-12);
  EXPECT_EQ(b.limiting, "compute");
}

TEST(ClosedForm, TwoByTwoByTwoGridAddsRingsBubbleAndGradients) {
  // dp 2, tp 2, pp 2, 2 layers (one per stage), 8 sequences -> m = 8 / (2 * 1) = 4.
  // Per stage and microbatch: forward kernel 8e9 FLOP (half of 1.6e10) = 8 ms + 1 us,
  // backward 16 ms + 1 us. TP ring all-reduce of 1000 x 1000 x 2 B = 2e6 B over p = 2
  // inside one NVLink domain (alpha = 2 hops x 0.5 us = 1 us, B = 450e9 B/s):
  // 2(p-1) = 2 steps: latency 2 us, bandwidth 2 x 2e6 / (2 x 450e9) = 4.444 us; one
  // all-reduce each way. F = 8 ms + 7.444 us, B = 16 ms + 7.444 us.
  // Send between stages: 1 us + 2e6 / 450e9 = 5.444 us.
  // DP ring: gradients 2 * 1000 * 4000 / 2 params x 2 B = 8e6 B over 2 ranks:
  // 2 us + 2 x 8e6 / (2 x 450e9) = 19.778 us.
  // Critical chain (stage 1): F0 + B0 + 2 sends + 4 (F1 + B1) + DP.
  BoundResult b = closed_form_bound(mlp_scenario(2, 2, 2, 2, 8), FabricSummary{});
  double ring_bw = 2.0 * 2e6 / (2.0 * 450e9);
  double fwd = 8e-3 + 1e-6 + 2e-6 + ring_bw, bwd = 16e-3 + 1e-6 + 2e-6 + ring_bw;
  double send = 1e-6 + 2e6 / 450e9, dp = 2e-6 + 2.0 * 8e6 / (2.0 * 450e9);
  EXPECT_NEAR(term(b, "compute").value(), 4 * 24e-3, 1e-12);
  EXPECT_NEAR(term(b, "latency").value(), 4 * (2 * 1e-6 + 2 * 2e-6), 1e-12);
  EXPECT_NEAR(term(b, "tp_network").value(), 4 * 2 * ring_bw, 1e-12);
  EXPECT_NEAR(term(b, "pipeline_bubble").value(), fwd + bwd + 2 * send, 1e-12);
  EXPECT_NEAR(term(b, "dp_allreduce").value(), dp, 1e-12);
  EXPECT_NEAR(b.step_time.value(), 5 * (fwd + bwd) + 2 * send + dp, 1e-12);
  EXPECT_EQ(b.critical_stage, 1);
  EXPECT_EQ(b.limiting, "compute");
}

TEST(ClosedForm, UniformPipelineBubbleIsPpMinusOneStageTimes) {
  // 4 stages of one layer, 8 microbatches, no TP/DP, sends over NVLink of 1000x1000x2 B:
  // the classic 1F1B bound (m + pp - 1)(F + B) plus 2 (pp - 1) sends.
  BoundResult b = closed_form_bound(mlp_scenario(4, 1, 1, 4, 8), FabricSummary{});
  double stage = 48e-3 + 2e-6, send = 1e-6 + 2e6 / 450e9;
  EXPECT_NEAR(b.step_time.value(), (8 + 4 - 1) * stage + 2 * 3 * send, 1e-12);
  EXPECT_NEAR(term(b, "pipeline_bubble").value(), 3 * stage + 6 * send, 1e-12);
}

TEST(ClosedForm, GroupsThatCrossNodesPayTheNetwork) {
  // Same TP ring as above but over the NIC: alpha = 4 hops x 0.5 us = 2 us, B = 50e9:
  // per all-reduce 2 x 2 us latency and 2 x 2e6 / (2 x 50e9) = 40 us bandwidth.
  FabricSummary f;
  f.tp_crosses_nodes = true;
  BoundResult b = closed_form_bound(mlp_scenario(1, 1, 2, 1, 1), f);
  EXPECT_NEAR(term(b, "tp_network").value(), 2 * 40e-6, 1e-12);
  EXPECT_NEAR(term(b, "latency").value(), 2 * 1e-6 + 2 * 4e-6, 1e-12);
  // A TP group larger than a node must cross nodes even without the flag.
  BoundResult wide = closed_form_bound(mlp_scenario(1, 1, 16, 1, 1), FabricSummary{});
  EXPECT_NEAR(term(wide, "latency").value(), 2 * 1e-6 + 2 * (2 * 15 * 2e-6), 1e-12);
}

TEST(ClosedForm, TransformerLayerAddsTheAttentionKernel) {
  // Attention on 1000 tokens, d 1000, seq 1000: QKV 2*1000*1000*3000 = 6e9, output
  // 2e9, scores + values 4*1000*1000*1000 = 4e9 -> 1.2e10 FLOP = 12 ms; MLP 16 ms.
  // One layer, one microbatch, forward + backward = 3 x 28 ms = 84 ms; 4 kernels = 4 us.
  Scenario s = mlp_scenario(1, 1, 1, 1, 1);
  s.model.kind = ModelKind::transformer;
  BoundResult b = closed_form_bound(s, FabricSummary{});
  EXPECT_NEAR(term(b, "compute").value(), 84e-3, 1e-12);
  EXPECT_NEAR(term(b, "latency").value(), 4e-6, 1e-15);
}

TEST(ClosedForm, HbmBoundKernelsAreCountedAsHbm) {
  // 1 token per microbatch: MLP forward FLOP 2 * 2*1*1000*4000 = 1.6e7 -> 16 us; HBM
  // weights 2 x 4e6 x 2 B + activations 2 x 5000 x 2 B = 1.602e7 B -> 16.02 us: HBM-bound.
  Scenario s = mlp_scenario(1, 1, 1, 1, 1);
  s.model.seq_len = 1;
  BoundResult b = closed_form_bound(s, FabricSummary{});
  EXPECT_NEAR(term(b, "hbm").value(), 3 * 16.02e-6, 1e-12);
  EXPECT_EQ(term(b, "compute").value(), 0.0);
  EXPECT_EQ(b.limiting, "hbm");
}

// A reference replay of the simulator's rules: each stage runs its pipeline_order() one
// operation at a time; a forward needs the previous stage's forward plus a send; a
// backward needs the next stage's backward plus a send (the last stage its own forward);
// each stage ends with its DP all-reduce. The bound must never exceed its makespan.
double replay(const std::vector<double>& fwd, const std::vector<double>& bwd, const std::vector<double>& dp, int m,
              double send, PipelineSchedule schedule) {
  int pp = static_cast<int>(fwd.size());
  std::vector<std::vector<double>> f_end(pp, std::vector<double>(m, -1)), b_end = f_end;
  std::vector<std::vector<PipelineOp>> order;
  for (int j = 0; j < pp; ++j) order.push_back(pipeline_order(schedule, j, pp, m));
  std::vector<size_t> next(pp, 0);
  std::vector<double> free_at(pp, 0.0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int j = 0; j < pp; ++j) {
      if (next[j] == order[j].size()) continue;
      PipelineOp op = order[j][next[j]];
      double ready = op.forward ? (j == 0 ? 0.0 : f_end[j - 1][op.microbatch] + send)
                                : (j == pp - 1 ? f_end[j][op.microbatch] : b_end[j + 1][op.microbatch] + send);
      bool waiting = op.forward ? (j > 0 && f_end[j - 1][op.microbatch] < 0)
                                : (j == pp - 1 ? f_end[j][op.microbatch] < 0 : b_end[j + 1][op.microbatch] < 0);
      if (waiting) continue;
      double end = std::max(ready, free_at[j]) + (op.forward ? fwd[j] : bwd[j]);
      (op.forward ? f_end : b_end)[j][op.microbatch] = free_at[j] = end;
      ++next[j], progress = true;
    }
  }
  double makespan = 0;
  for (int j = 0; j < pp; ++j) makespan = std::max(makespan, free_at[j] + dp[j]);
  return makespan;
}

TEST(ClosedForm, NeverAboveAReplayOfUnevenStages) {
  // 5 layers on 3 stages (2, 2, 1 layers), no TP, dp 2 so each stage has a DP all-reduce.
  // Per layer: F = 16 ms + 1 us, B = 32 ms + 1 us; DP gradients 8e6 params x 2 B per layer.
  // With m = 1 the bound is the full round trip F0 F1 F2 B2 B1 B0 plus 4 sends: exact.
  for (PipelineSchedule schedule : {PipelineSchedule::one_f_one_b, PipelineSchedule::gpipe}) {
    for (int m : {1, 2, 3, 8}) {
      Scenario s = mlp_scenario(5, 2, 1, 3, 2L * m);
      s.execution.schedule = schedule;
      BoundResult b = closed_form_bound(s, FabricSummary{});
      double f = 16e-3 + 1e-6, bw = 32e-3 + 1e-6, send = 1e-6 + 2e6 / 450e9;
      auto dp = [](double layers) { return 2e-6 + 2.0 * layers * 16e6 / (2.0 * 450e9); };
      double sim = replay({2 * f, 2 * f, f}, {2 * bw, 2 * bw, bw}, {dp(2), dp(2), dp(1)}, m, send, schedule);
      EXPECT_LE(b.step_time.value(), sim * (1 + 1e-12)) << to_string(schedule) << " m=" << m;
      if (m == 1) {
        EXPECT_NEAR(b.step_time.value(), sim, 1e-12);
      }
      // Not loose either: within 15% (GPipe's all-forwards-first order idles stages longer
      // than any schedule-free chain can see).
      EXPECT_GE(b.step_time.value(), 0.85 * sim) << to_string(schedule) << " m=" << m;
    }
  }
}

TEST(ClosedForm, TextNamesEveryTermAndTheLimitingOne) {
  std::string text = format_bound(closed_form_bound(mlp_scenario(2, 2, 2, 2, 8), FabricSummary{}));
  for (const char* name : {"compute", "hbm", "latency", "tp_network", "pipeline_bubble", "dp_allreduce"})
    EXPECT_NE(text.find(name), std::string::npos) << name;
  EXPECT_NE(text.find("limiting: compute"), std::string::npos);
}

} // namespace
} // namespace trainsim
