// One plan's times (evaluate_plan): per GPU, per microbatch, on the most loaded pipeline
// stage. The stage's FLOP, HBM bytes, parameters and memory come from the cost basis the
// simulator and the closed form share (models/workload.hpp); which tier each group crosses
// from the frontier's rank order (models/layout.hpp) on a two-tier fabric (fabric.hpp); the
// steps of a collective from collective_cost.hpp; the pipeline from pipeline_path.hpp. What
// is the paper's own is the combination: every term overlaps the others, bytes are summed per
// tier, and the serial path counts every kernel and collective step (docs/closed-form.md,
// "One plan").
#include "models/frontier.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "models/collective_cost.hpp"
#include "models/layout.hpp"
#include "models/pipeline_path.hpp"

namespace trainsim {
namespace {

// The tier each parallel group's neighbours talk over, in the frontier's rank order.
struct Placement {
  const Tier *tp_2d, *tp_1d, *ep, *pp, *dp;
};

Placement place(const ParallelPlan& p, const TwoTierFabric& f) {
  NestedSpans s = nested_spans(p.tp_2d, p.tp_1d, p.ep, p.pp, p.gpus());
  return {&f.tier_for(s.tp_2d), &f.tier_for(s.tp_1d), &f.tier_for(s.ep), &f.tier_for(s.pp),
          &f.tier_for(s.dp)};
}

std::string_view algorithm(CollectiveLatency c) {
  return c == CollectiveLatency::tree ? "tree" : "ring";
}

// Latency of one phase (reduce-scatter or all-gather) of a collective over p ranks.
Seconds phase_latency(double p, const Tier& tier, const FrontierHardware& hw) {
  return tier.alpha * half_steps(algorithm(hw.collective), p);
}

// The most loaded stage's share of the work: its GPU's share of a layer (this replica's
// tokens of one microbatch, b = B / (dp m), split over tp = tp_1d x tp_2d and ep) and its
// ceil(L / pp) layers.
struct Stage {
  GpuShare share;
  double layers = 0;
};

Stage stage_of(const ModelShape& s, const ParallelPlan& p) {
  GpuShare share{s.batch_tokens / (p.dp * p.microbatches), p.tp_1d, p.tp_2d, p.ep};
  return {share, static_cast<double>(stage_layers(s.layers, p.pp, 0))};
}

// Bytes that cross each tier, per GPU.
struct Traffic {
  Bytes nvlink, network;
  void add(Bytes b, const Tier* tier, const TwoTierFabric& f) {
    (tier == &f.nvlink ? nvlink : network) += b;
  }
};

// The paper's V = 2[IJ(N_K-1) + KJ(N_I-1) + IK(N_J-1)] for up (J=d, K=f) and down (J=f, K=d)
// projections with N_K = tp_1d for up and N_J = tp_1d for down (Megatron pairing): per GPU,
// 4 tokens d (tp_1d - 1)/tp over tp_1d and 4 tokens f (tp_2d - 1)/tp over tp_2d, tokens
// being the routed ones (each expert's matmul is reduced). The KJ(N_I-1) term is the DP
// all-reduce (dp_time). EP: dispatch + combine, forward and backward, a token leaving with
// probability (ep-1)/ep. PP: one activation out, one gradient back per boundary. EP and PP
// move each TP rank's 1/tp slice; the step program's pipeline transfers do too (sequence
// parallel), its all-to-alls carry whole activations, and its backward regathers the
// sequence-parallel input once more (tests/models/frontier_program_test.cpp holds the two).
Traffic traffic(const ModelShape& s, const Stage& st, const ParallelPlan& p, const Placement& pl,
                const TwoTierFabric& f) {
  const LayerShape& l = s.layer;
  double word = l.bytes_per_word.value(), tp = st.share.tp();
  double per_layer = 4.0 * (st.share.tokens * l.top_k) * word / tp * st.layers;
  Traffic t;
  t.add(Bytes(per_layer * l.d_model * (p.tp_1d - 1)), pl.tp_1d, f);
  t.add(Bytes(per_layer * l.d_ff * (p.tp_2d - 1)), pl.tp_2d, f);
  t.add(Bytes(per_layer * l.d_model * (p.ep - 1) / p.ep), pl.ep, f);
  if (p.pp > 1)
    t.add(Bytes(2.0 * p.interleave * st.share.tokens * l.d_model * word / tp), pl.pp, f);
  return t;
}

// Serial path of one layer, forward + backward (frontier.hpp, LatencyPath): 4 kernels, 4
// phases per TP axis of half_steps() steps each, 4 EP all-to-alls; one send per chunk
// boundary each way.
LatencyPath latency_of(const Stage& st, const ParallelPlan& p, const Placement& pl,
                       const FrontierHardware& hw) {
  auto phases = [&](const char* what, double group, const Tier& tier) {
    return PathStep{what, tier.name.c_str(), 4.0 * half_steps(algorithm(hw.collective), group),
                    tier.alpha};
  };
  LatencyPath path;
  path.layer = {
      PathStep{"kernel launches", "", 4.0, hw.gpu.kernel_latency},
      phases("1-D TP collective steps", p.tp_1d, *pl.tp_1d),
      phases("2-D TP collective steps", p.tp_2d, *pl.tp_2d),
      PathStep{"EP all-to-all rounds", pl.ep->name.c_str(), p.ep > 1 ? 4.0 : 0.0, pl.ep->alpha}};
  path.layers = st.layers;
  path.sends = p.pp > 1 ? pl.pp->alpha * (2.0 * p.interleave) : Seconds(0);
  return path;
}

// Gradient all-reduce of the GPU's parameters over the R ranks that hold the same ones (an
// MLP block's are all dense, R = dp, or with ep > 1 all experts, R = dp / ep):
// 2 (R-1)/R x their bytes.
struct Reduction {
  Bytes bytes;
  Seconds time;
};
Reduction dp_reduction(const GpuParams& params, const ParallelPlan& p, const Placement& pl,
                       const FrontierHardware& hw, double word) {
  double r = params.experts > 0 ? p.dp / p.ep : p.dp;
  Bytes bytes(2.0 * (r - 1.0) / r * params.total() * word);
  return {bytes, bytes / pl.dp->bandwidth + phase_latency(r, *pl.dp, hw) * 2.0};
}

// The DP all-reduce overlaps the pipeline but shares its links: the paper's V sums the
// gradients' bytes, KJ(N_I - 1), with the activations' on each GPU, so a tier's bytes of the
// whole step (m microbatches' and the all-reduce's) take their time at its bandwidth.
struct TierTotals {
  Seconds nvlink, network;
};
TierTotals tier_totals(Traffic tr, const ParallelPlan& p, const Placement& pl, Bytes dp,
                       const TwoTierFabric& f) {
  tr.nvlink = tr.nvlink * p.microbatches, tr.network = tr.network * p.microbatches;
  tr.add(dp, pl.dp, f);
  return {tr.nvlink / f.nvlink.bandwidth, tr.network / f.network.bandwidth};
}

// Weights and gradients per GPU, the optimizer state sharded over the replicas (ZeRO-1, the
// baseline), the activations of the microbatches in flight (1F1B keeps at most pp).
Bytes memory(const ModelShape& s, const Stage& st, const ParallelPlan& p) {
  StageResidency r;
  r.layers = st.layers;
  r.in_flight = std::min(p.microbatches, p.pp);
  r.dp = p.dp;
  r.zero = 1;
  r.optimizer_bytes_per_param = s.optimizer_bytes_per_param;
  return memory_use(s.layer, st.share, r).total();
}

std::string binding_of(const PlanTimes& t, int microbatches) {
  if (t.shared > std::max(t.pipeline, t.dp))
    return t.shared == t.shared_nvlink ? "shared_nvlink" : "shared_network";
  if (t.dp > t.pipeline) return "dp_network";
  std::pair<Seconds, const char*> terms[] = {{t.compute, "compute"},
                                             {t.hbm, "hbm"},
                                             {t.nvlink, "nvlink"},
                                             {t.network, "network"},
                                             {t.latency, "latency"}};
  auto* top = std::max_element(std::begin(terms), std::end(terms),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
  // A compute-bound stage that loses a fifth or more of the step to fill and drain is bound
  // by the pipeline bubble rather than by compute.
  if (top->first == t.compute && t.pipeline > t.compute * microbatches * 1.25)
    return "pipeline_bubble";
  return top->second;
}

} // namespace

LatencyPath latency_path(const ModelShape& s, const FrontierHardware& hw, const ParallelPlan& p) {
  return latency_of(stage_of(s, p), p, place(p, hw.fabric), hw);
}

PlanTimes evaluate_plan(const ModelShape& s, const FrontierHardware& hw, const ParallelPlan& p) {
  Stage st = stage_of(s, p);
  Placement pl = place(p, hw.fabric);
  // Forward and backward are three passes of the microbatch (input and weight gradients).
  KernelCost work = mlp_cost(s.layer, st.share, 3.0, st.layers);
  Traffic tr = traffic(s, st, p, pl, hw.fabric);
  PlanTimes t;
  t.compute = compute_time(work.flop, hw.gpu);
  t.hbm = hbm_time(work.hbm, hw.gpu);
  t.nvlink = tr.nvlink / hw.fabric.nvlink.bandwidth;
  t.network = tr.network / hw.fabric.network.bandwidth;
  t.latency = latency_of(st, p, pl, hw).total();
  t.stage = std::max({t.compute, t.hbm, t.nvlink, t.network, t.latency});
  t.pipeline = t.stage * pipeline_slots(p.microbatches, p.pp, p.interleave);
  Reduction dp = dp_reduction(params_on_gpu(s.layer, st.share, st.layers), p, pl, hw,
                              s.layer.bytes_per_word.value());
  t.dp = dp.time;
  TierTotals totals = tier_totals(tr, p, pl, dp.bytes, hw.fabric);
  t.shared_nvlink = totals.nvlink;
  t.shared = std::max(totals.nvlink, totals.network);
  t.step = std::max({t.pipeline, t.dp, t.shared});
  t.tokens_per_microbatch = st.share.tokens;
  t.memory = memory(s, st, p);
  t.fits = t.memory <= hw.gpu.hbm_capacity && st.share.tokens >= 1.0;
  Flop model_flop(6.0 * s.active_params * s.batch_tokens);
  t.utilization = model_flop.value() / (p.gpus() * (hw.gpu.peak * t.step).value());
  t.binding = binding_of(t, p.microbatches);
  return t;
}

} // namespace trainsim
