// One plan's times (evaluate_plan): per GPU, per microbatch, on the most loaded pipeline
// stage, combined as the paper does (docs/closed-form.md, "One plan").
#include "models/frontier.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace trainsim {
namespace {

// --- Placement: which tier each parallel group's neighbours talk over. -------------------
// The NVLink domain is filled innermost-first with the groups that move the most bytes per
// step: tp_2d (d_ff-sized), then tp_1d, ep, pp, and dp last.
struct Link {
  Seconds alpha;
  bool nvlink = false;
};

struct Placement {
  Link tp_2d, tp_1d, ep, pp, dp;
};

Link link_for(double group_span, const Hardware& hw) {
  bool inside = group_span <= hw.nvlink_domain;
  return {inside ? hw.nvlink_latency : hw.network_latency, inside};
}

Placement place(const ParallelPlan& p, const Hardware& hw) {
  double y = p.tp_2d, xy = y * p.tp_1d, exy = xy * p.ep;
  return {link_for(y, hw), link_for(xy, hw), link_for(exy, hw), link_for(exy * p.pp, hw), link_for(p.gpus(), hw)};
}

// Latency of one phase (reduce-scatter or all-gather) of a collective over p ranks.
Seconds phase_latency(double p, Link link, const Hardware& hw) {
  if (p <= 1) return Seconds(0);
  double steps = hw.collective == CollectiveLatency::tree ? std::ceil(std::log2(p)) : p - 1;
  return link.alpha * steps;
}

// Bytes that cross each tier, per GPU.
struct Traffic {
  Bytes nvlink, network;
  void add(Bytes b, Link l) { (l.nvlink ? nvlink : network) += b; }
};

// --- Per-stage, per-microbatch costs. -------------------------------------------------------
// tokens: this replica's microbatch; tp = tp_1d x tp_2d. Each token visits top_k experts.
struct StageWork {
  double layers = 0, tokens = 0, tp = 1, experts_here = 1, routed = 0;
};

StageWork stage_work(const ModelShape& s, const ParallelPlan& p) {
  StageWork w;
  w.layers = std::ceil(static_cast<double>(s.layers) / p.pp);
  w.tokens = s.batch_tokens / (p.dp * p.microbatches);
  w.tp = static_cast<double>(p.tp_1d) * p.tp_2d;
  w.experts_here = static_cast<double>(s.experts) / p.ep;
  w.routed = w.tokens * s.top_k;
  return w;
}

// Forward + backward = 3 x forward: 2 FLOP per MAC, two d_model x d_ff matmuls.
Seconds compute_time(const ModelShape& s, const StageWork& w, const Hardware& hw) {
  Flop f(3.0 * 2.0 * w.routed * 2.0 * s.d_model * s.d_ff / w.tp * w.layers);
  return f / (hw.peak * hw.efficiency);
}

double params_per_gpu(const ModelShape& s, const StageWork& w) {
  return w.layers * w.experts_here * 2.0 * s.d_model * s.d_ff / w.tp;
}

// Weights read once forward and twice backward per microbatch; each matmul reads its input
// and writes its output once per pass.
Seconds hbm_time(const ModelShape& s, const StageWork& w, const Hardware& hw, double word) {
  double weights = 3.0 * params_per_gpu(s, w) * word;
  double activations = 3.0 * 2.0 * w.routed * (s.d_model + s.d_ff) * word / w.tp * w.layers;
  return Bytes(weights + activations) / hw.hbm_bandwidth;
}

// The paper's V = 2[IJ(N_K-1) + KJ(N_I-1) + IK(N_J-1)] for up (J=d, K=f) and down (J=f, K=d)
// projections with N_K = tp_1d for up and N_J = tp_1d for down (Megatron pairing): per GPU,
// 4 tokens d (tp_1d - 1)/tp over tp_1d and 4 tokens f (tp_2d - 1)/tp over tp_2d. The
// KJ(N_I-1) term is the DP all-reduce (dp_time). EP: dispatch + combine, forward and
// backward, a token leaving with probability (ep-1)/ep. PP: one activation out, one gradient
// back per boundary.
Traffic traffic(const ModelShape& s, const StageWork& w, const ParallelPlan& p, const Placement& pl, double word) {
  double per_layer = 4.0 * w.routed * word / w.tp * w.layers;
  Traffic t;
  t.add(Bytes(per_layer * s.d_model * (p.tp_1d - 1)), pl.tp_1d);
  t.add(Bytes(per_layer * s.d_ff * (p.tp_2d - 1)), pl.tp_2d);
  t.add(Bytes(per_layer * s.d_model * (p.ep - 1) / p.ep), pl.ep);
  if (p.pp > 1) t.add(Bytes(2.0 * p.interleave * w.tokens * s.d_model * word / w.tp), pl.pp);
  return t;
}

// Serial path of one layer, forward + backward: 2 matmul kernels each way (weight gradients
// are off the path), 2 collective phases per TP axis per matmul pair each way, and 2 EP
// all-to-alls each way; plus one send per chunk boundary each way.
Seconds latency_time(const StageWork& w, const ParallelPlan& p, const Placement& pl, const Hardware& hw) {
  Seconds layer = hw.kernel_latency * 4.0;
  layer += phase_latency(p.tp_1d, pl.tp_1d, hw) * 4.0;
  layer += phase_latency(p.tp_2d, pl.tp_2d, hw) * 4.0;
  if (p.ep > 1) layer += pl.ep.alpha * 4.0;
  Seconds sends = p.pp > 1 ? pl.pp.alpha * (2.0 * p.interleave) : Seconds(0);
  return layer * w.layers + sends;
}

double replicas(const ModelShape& s, const ParallelPlan& p) { return s.experts > 1 ? p.dp / p.ep : p.dp; }

// Gradient all-reduce of the GPU's shard over its replicas: 2 (R-1)/R x shard bytes.
Seconds dp_time(const ModelShape& s, const StageWork& w, const ParallelPlan& p, const Placement& pl,
                const Hardware& hw, double word) {
  double r = replicas(s, p);
  Bytes bytes(2.0 * (r - 1.0) / r * params_per_gpu(s, w) * word);
  BytesPerSecond bw = pl.dp.nvlink ? hw.nvlink_bandwidth : hw.network_bandwidth;
  return bytes / bw + phase_latency(r, pl.dp, hw) * 2.0;
}

// Weights and gradients per GPU, optimizer sharded over replicas, activations of the
// microbatches in flight (1F1B keeps at most pp).
Bytes memory_use(const ModelShape& s, const StageWork& w, const ParallelPlan& p, double word, double opt) {
  double params = params_per_gpu(s, w);
  double acts = w.tokens * (s.d_model + 2.0 * s.top_k * s.d_ff) * word / w.tp * w.layers;
  double in_flight = std::min(p.microbatches, p.pp);
  return Bytes(params * 2.0 * word + params * opt / replicas(s, p) + acts * in_flight);
}

std::string binding_of(const PlanTimes& t, int microbatches) {
  if (t.dp > t.pipeline) return "dp_network";
  std::pair<Seconds, const char*> terms[] = {
      {t.compute, "compute"}, {t.hbm, "hbm"}, {t.nvlink, "nvlink"}, {t.network, "network"}, {t.latency, "latency"}};
  auto* top = std::max_element(std::begin(terms), std::end(terms),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
  // A compute-bound stage that loses a fifth or more of the step to fill and drain is bound
  // by the pipeline bubble rather than by compute.
  if (top->first == t.compute && t.pipeline > t.compute * microbatches * 1.25) return "pipeline_bubble";
  return top->second;
}

} // namespace

double pipeline_slots(const ParallelPlan& p) {
  double slots = p.microbatches + static_cast<double>(p.pp - 1) / p.interleave;
  return std::max(slots, static_cast<double>(p.pp));
}

PlanTimes evaluate_plan(const ModelShape& s, const Hardware& hw, const ParallelPlan& p) {
  const double word = s.bytes_per_word;
  StageWork w = stage_work(s, p);
  Placement pl = place(p, hw);
  Traffic tr = traffic(s, w, p, pl, word);
  PlanTimes t;
  t.compute = compute_time(s, w, hw);
  t.hbm = hbm_time(s, w, hw, word);
  t.nvlink = tr.nvlink / hw.nvlink_bandwidth;
  t.network = tr.network / hw.network_bandwidth;
  t.latency = latency_time(w, p, pl, hw);
  t.stage = std::max({t.compute, t.hbm, t.nvlink, t.network, t.latency});
  t.pipeline = t.stage * pipeline_slots(p);
  t.dp = dp_time(s, w, p, pl, hw, word);
  t.step = std::max(t.pipeline, t.dp);
  t.tokens_per_microbatch = w.tokens;
  t.memory = memory_use(s, w, p, word, s.optimizer_bytes_per_param);
  t.fits = t.memory <= hw.hbm_capacity && w.tokens >= 1.0;
  Flop model_flop(6.0 * s.active_params * s.batch_tokens);
  t.utilization = model_flop.value() / (p.gpus() * (hw.peak * t.step).value());
  t.binding = binding_of(t, p.microbatches);
  return t;
}

} // namespace trainsim
