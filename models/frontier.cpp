#include "models/frontier.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "models/error.hpp"

namespace trainsim {
namespace {

constexpr const char* kSource = "trainsim frontier";

std::string text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

void require(bool ok, const char* key, double value, const char* problem) {
  if (!ok) throw InputError(kSource, key, text(value), problem);
}

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

// Stage times per step: m passes plus the bubble, (pp - 1) / v with v interleaved chunks;
// never below pp, the serial chain of one microbatch through every stage.
double pipeline_slots(const ParallelPlan& p) {
  double slots = p.microbatches + static_cast<double>(p.pp - 1) / p.interleave;
  return std::max(slots, static_cast<double>(p.pp));
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

Hardware resolve_hardware(const FrontierOptions& o) {
  const HardwarePreset& preset = hardware_preset(o.gpu);
  Hardware hw;
  hw.peak = preset.gpu.peak;
  hw.efficiency = o.matmul_efficiency.value_or(preset.gpu.matmul_efficiency);
  hw.hbm_bandwidth = preset.gpu.hbm_bandwidth;
  hw.hbm_capacity = preset.gpu.hbm_capacity;
  hw.kernel_latency = o.kernel_latency.value_or(preset.gpu.kernel_latency) * o.latency_scale;
  hw.nvlink_domain = preset.nvlink_domain;
  hw.nvlink_bandwidth = preset.nvlink_bandwidth * o.bandwidth_scale;
  hw.network_bandwidth = preset.network_bandwidth * o.bandwidth_scale;
  hw.nvlink_latency = o.nvlink_latency * o.latency_scale;
  hw.network_latency = o.network_latency * o.latency_scale;
  hw.collective = o.collective;
  return hw;
}

ModelShape shape_for(Flop compute, const FrontierOptions& o, bool moe) {
  ModelShape s;
  s.compute = compute;
  s.experts = moe ? o.experts : 1;
  s.top_k = moe ? o.top_k : 1;
  s.active_params = std::sqrt(compute.value() / (6.0 * o.tokens_per_param));
  s.total_params = s.active_params * s.experts / s.top_k;
  // N = 2 L d d_ff k = 2 ff k a^2 L^3 with d = a L.
  double per_layer_coeff = 2.0 * o.ff_ratio * s.top_k * o.aspect_ratio * o.aspect_ratio;
  s.layers = std::max(1, static_cast<int>(std::lround(std::cbrt(s.active_params / per_layer_coeff))));
  s.d_model = std::sqrt(s.active_params / (2.0 * o.ff_ratio * s.top_k * s.layers));
  s.d_ff = o.ff_ratio * s.d_model;
  s.tokens = o.tokens_per_param * s.active_params;
  s.batch_tokens = std::min(s.tokens, o.batch_tokens_at_1e25 * std::pow(compute.value() / 1e25, o.batch_exponent));
  s.steps = s.tokens / s.batch_tokens;
  s.bytes_per_word = o.bytes_per_word;
  s.optimizer_bytes_per_param = o.optimizer_bytes_per_param;
  return s;
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

namespace {

// Degrees searched: 1, 2, 3, 4, 6, 8, 12, ... (2^k and 3 x 2^k), fine enough that the
// curves do not jump with the rounding of layers per stage or tokens per microbatch.
int next_degree(int n) {
  if (n == 1) return 2;
  bool power_of_two = (n & (n - 1)) == 0;
  return power_of_two ? n / 2 * 3 : n / 3 * 4;
}

// Pipeline degrees: the grid, plus those that give every stage the same number of layers
// k = 1, 2, 3, 4, 6, ... (pp = ceil(L / k)), so that deep pipelines do not lose a stage's
// worth of time to rounding.
std::vector<int> pipeline_degrees(int layers) {
  std::vector<int> pp;
  for (int n = 1; n <= layers; n = next_degree(n)) pp.push_back(n), pp.push_back((layers + n - 1) / n);
  std::sort(pp.begin(), pp.end());
  pp.erase(std::unique(pp.begin(), pp.end()), pp.end());
  return pp;
}

// Searches the plans of one compute level. For fixed degrees, utilization only falls as dp
// grows (more GPUs, same fixed per-microbatch costs) while the step time falls, so the best
// dp is the smallest that meets the step budget: found by bisection between the fewest
// replicas and the most (one token per microbatch), after checking that the most suffice.
class PlanSearch {
public:
  PlanSearch(const ModelShape& s, const Hardware& hw, const FrontierOptions& o, Seconds budget)
      : s_(s), hw_(hw), o_(o), budget_(budget) {}

  void run() {
    std::vector<int> stages = pipeline_degrees(s_.layers);
    for (int y = 1; y <= std::min(kMaxTp, o_.max_tp_2d); y = next_degree(y))
      for (int x = 1; x * y <= kMaxTp; x = next_degree(x))
        for (int pp : stages)
          for (int ep = 1; ep <= s_.experts; ep *= 2)
            for (int m = 1; m <= kMaxMicrobatches && m <= s_.batch_tokens; m = next_degree(m))
              try_interleaves({1, x, y, pp, ep, m});
  }

  bool found = false;
  ParallelPlan best, fastest;
  PlanTimes best_times, fastest_times;
  bool any_fits = false;

private:
  static constexpr int kMaxTp = 1 << 16; // the wall needs ~2^11; 2^16 leaves room for the knobs
  static constexpr int kMaxMicrobatches = 1 << 12;
  static constexpr double kTie = 1e-3;

  // No plan beats the sustained maximum times the pipeline's busy fraction, m / slots, at the
  // most interleaving allowed: a bound that skips most deep pipelines without evaluating them.
  double bubble_bound(ParallelPlan p) const {
    p.interleave = std::max(1, std::min(o_.max_interleave, s_.layers / p.pp));
    return hw_.efficiency * p.microbatches / pipeline_slots(p);
  }

  PlanTimes at(ParallelPlan& p, double dp) {
    p.dp = dp;
    return evaluate_plan(s_, hw_, p);
  }
  bool ok(const PlanTimes& t) const { return t.fits && t.step <= budget_; }

  // Interleaving needs pp > 1, microbatches a multiple of pp and v chunks of layers per GPU.
  void try_interleaves(ParallelPlan p) {
    if (found && !better_or_tied(bubble_bound(p))) return;
    try_degrees(p);
    if (p.pp == 1 || p.microbatches % p.pp != 0) return;
    for (p.interleave = 2; p.interleave <= o_.max_interleave && p.interleave * p.pp <= s_.layers; p.interleave *= 2)
      try_degrees(p);
  }

  void try_degrees(ParallelPlan p) {
    double lo = p.ep, hi = std::min(s_.batch_tokens / p.microbatches, o_.max_gpus / (p.gpus()));
    if (hi < lo) return;
    PlanTimes quickest = at(p, hi); // the most replicas give the shortest step
    if (!ok(quickest)) return note_fastest(p, quickest);
    PlanTimes t = at(p, lo);
    if (found && !better_or_tied(t.utilization)) return; // cannot beat the best
    if (!ok(t)) t = bisect(p, lo, hi);
    if (whole_replicas(p, hi, t)) consider(p, t);
  }

  // Rounds dp up to a whole number of EP groups (the cluster is made of GPUs); more
  // replicas only shorten the step, unless b would drop below one token: then round down.
  bool whole_replicas(ParallelPlan& p, double hi, PlanTimes& t) {
    double groups = std::ceil(p.dp / p.ep - 1e-9);
    if (groups * p.ep > hi) groups = std::floor(hi / p.ep);
    if (groups < 1) return false;
    t = at(p, groups * p.ep);
    return ok(t);
  }

  // dp in (lo, hi]: lo fails, hi succeeds; returns the times at the smallest succeeding dp,
  // to a factor 2^(log2(hi / lo) / 2^16).
  PlanTimes bisect(ParallelPlan& p, double lo, double hi) {
    for (int i = 0; i < 16; ++i) {
      double mid = std::sqrt(lo * hi);
      (ok(at(p, mid)) ? hi : lo) = mid;
    }
    return at(p, hi);
  }

  // Utilizations within 0.1% are ties, won by the smaller cluster (it runs closer to the
  // full duration instead of finishing early on more GPUs).
  bool better_or_tied(double utilization) const { return utilization > best_times.utilization * (1.0 - kTie); }

  // Fewer GPUs first; at the same count, less model parallelism (the simpler plan).
  static bool smaller(const ParallelPlan& a, const ParallelPlan& b) {
    if (a.gpus() < b.gpus() * (1.0 - kTie)) return true;
    if (a.gpus() > b.gpus() * (1.0 + kTie)) return false;
    return a.tp_1d * a.tp_2d * a.pp < b.tp_1d * b.tp_2d * b.pp;
  }

  void consider(const ParallelPlan& p, const PlanTimes& t) {
    if (found && !better_or_tied(t.utilization)) return;
    bool tie = found && t.utilization < best_times.utilization * (1.0 + kTie);
    if (tie && !smaller(p, best)) return;
    found = true, best = p, best_times = t;
  }

  void note_fastest(const ParallelPlan& p, const PlanTimes& t) {
    if (!t.fits) return;
    if (any_fits && t.step >= fastest_times.step) return;
    any_fits = true, fastest = p, fastest_times = t;
  }

  const ModelShape& s_;
  const Hardware& hw_;
  const FrontierOptions& o_;
  Seconds budget_;
};

std::string describe(const ParallelPlan& p) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "dp %.4g x tp %d x %d x pp %d, ep %d, %d microbatches, interleave %d", p.dp,
                p.tp_1d, p.tp_2d, p.pp, p.ep, p.microbatches, p.interleave);
  return buf;
}

std::string infeasible_reason(const PlanSearch& search, const FrontierPoint& point, Seconds duration) {
  if (!search.any_fits) return "no plan within max_gpus fits in HBM with at least one token per microbatch";
  const PlanTimes& t = search.fastest_times;
  return "no plan finishes in " + format(duration) + ": the fastest (" + describe(search.fastest) + ") needs " +
         format(t.step) + " per step, budget " + format(point.step_budget) + ", bound by " + t.binding;
}

} // namespace

FrontierPoint frontier_point(Flop compute, const FrontierOptions& o, bool moe) {
  FrontierPoint point;
  point.shape = shape_for(compute, o, moe);
  point.step_budget = o.duration / point.shape.steps;
  Hardware hw = resolve_hardware(o);
  PlanSearch search(point.shape, hw, o, point.step_budget);
  search.run();
  point.feasible = search.found;
  point.plan = search.found ? search.best : search.fastest;
  point.times = search.found ? search.best_times : search.fastest_times;
  if (!search.found) point.reason = infeasible_reason(search, point, o.duration);
  return point;
}

namespace {

std::vector<Flop> compute_levels(const FrontierOptions& o) {
  std::vector<Flop> levels;
  double lo = std::log10(o.min_flop.value()), hi = std::log10(o.max_flop.value());
  int n = static_cast<int>(std::floor((hi - lo) * o.points_per_decade + 1e-9));
  for (int i = 0; i <= n; ++i) levels.emplace_back(std::pow(10.0, lo + static_cast<double>(i) / o.points_per_decade));
  return levels;
}

// Where utilization crosses the threshold between two grid points, interpolated linearly in
// log10(C); the last grid point above it when the next one is infeasible.
double knee_between(const FrontierPoint& above, const FrontierPoint* next, double threshold) {
  double x0 = std::log10(above.shape.compute.value());
  if (next == nullptr || !next->feasible) return above.shape.compute.value();
  double u0 = above.times.utilization, u1 = next->times.utilization;
  double x1 = std::log10(next->shape.compute.value());
  return std::pow(10.0, x0 + (u0 - threshold) / (u0 - u1) * (x1 - x0));
}

void find_knee(FrontierCurve& c, double threshold) {
  for (size_t i = 0; i < c.points.size(); ++i) {
    const FrontierPoint& p = c.points[i];
    if (!p.feasible || p.times.utilization < threshold) continue;
    const FrontierPoint* next = i + 1 < c.points.size() ? &c.points[i + 1] : nullptr;
    c.utilization_knee = Flop(knee_between(p, next, threshold));
  }
}

// The wall lies between the largest feasible grid point and the next one: bisect in log10(C).
void find_wall(FrontierCurve& c, const FrontierOptions& o, bool moe) {
  auto last = std::find_if(c.points.rbegin(), c.points.rend(), [](const FrontierPoint& p) { return p.feasible; });
  if (last == c.points.rend()) return;
  double lo = std::log10(last->shape.compute.value()), hi = lo + 1.0 / o.points_per_decade;
  if (last == c.points.rbegin()) return void(c.latency_wall = last->shape.compute);
  for (int i = 0; i < 8; ++i) {
    double mid = 0.5 * (lo + hi);
    (frontier_point(Flop(std::pow(10.0, mid)), o, moe).feasible ? lo : hi) = mid;
  }
  c.latency_wall = Flop(std::pow(10.0, lo));
}

} // namespace

FrontierCurve frontier_curve(const FrontierOptions& o, bool moe) {
  FrontierCurve curve;
  curve.name = moe ? "moe" : "dense";
  curve.max_utilization = resolve_hardware(o).efficiency;
  for (Flop c : compute_levels(o)) curve.points.push_back(frontier_point(c, o, moe));
  find_knee(curve, o.knee_fraction * curve.max_utilization);
  find_wall(curve, o, moe);
  return curve;
}

FrontierResult run_frontier(const FrontierOptions& o) {
  validate(o);
  return {o, resolve_hardware(o), {frontier_curve(o, false), frontier_curve(o, true)}};
}

void validate(const FrontierOptions& o) {
  (void)hardware_preset(o.gpu);
  require(o.duration.value() > 0 && std::isfinite(o.duration.value()), "duration", o.duration.value(),
          "must be a positive time (e.g. 3months, 7.776e6s)");
  require(o.tokens_per_param > 0, "tokens_per_param", o.tokens_per_param, "must be greater than zero");
  require(o.aspect_ratio > 0, "aspect_ratio", o.aspect_ratio, "must be greater than zero (d_model / layers)");
  require(o.ff_ratio > 0, "ff_ratio", o.ff_ratio, "must be greater than zero (d_ff / d_model)");
  require(o.batch_tokens_at_1e25 >= 1, "batch_coefficient", o.batch_tokens_at_1e25, "must be at least one token");
  require(o.batch_exponent >= 0 && o.batch_exponent < 1, "batch_exponent", o.batch_exponent, "must be in [0, 1)");
  require(o.experts >= 1, "experts", o.experts, "must be at least 1");
  require(o.top_k >= 1 && o.top_k <= o.experts, "top_k", o.top_k, "must be between 1 and experts");
  double eff = o.matmul_efficiency.value_or(0.8);
  require(eff > 0 && eff <= 1, "matmul_efficiency", eff, "must be in (0, 1]");
  double kl = o.kernel_latency.value_or(Seconds(0)).value();
  require(kl >= 0, "kernel_latency", kl, "must not be negative");
  require(o.nvlink_latency.value() >= 0, "nvlink_latency", o.nvlink_latency.value(), "must not be negative");
  require(o.network_latency.value() >= 0, "network_latency", o.network_latency.value(), "must not be negative");
  require(o.bandwidth_scale > 0, "bandwidth_scale", o.bandwidth_scale, "must be greater than zero");
  require(o.latency_scale >= 0, "latency_scale", o.latency_scale, "must not be negative");
  require(o.bytes_per_word > 0, "bytes_per_word", o.bytes_per_word, "must be greater than zero");
  require(o.optimizer_bytes_per_param >= 0, "optimizer_bytes_per_param", o.optimizer_bytes_per_param,
          "must not be negative");
  require(o.min_flop.value() > 0, "min_flop", o.min_flop.value(), "must be greater than zero");
  require(o.max_flop >= o.min_flop, "max_flop", o.max_flop.value(), "must be at least min_flop");
  require(o.points_per_decade >= 1 && o.points_per_decade <= 100, "points_per_decade", o.points_per_decade,
          "must be between 1 and 100");
  require(o.knee_fraction > 0 && o.knee_fraction <= 1, "knee_fraction", o.knee_fraction, "must be in (0, 1]");
  require(o.max_interleave >= 1, "max_interleave", o.max_interleave, "must be at least 1");
  require(o.max_tp_2d >= 1, "max_tp_2d", o.max_tp_2d, "must be at least 1");
  require(o.max_gpus >= 1, "max_gpus", o.max_gpus, "must be at least 1");
}

Seconds parse_duration(std::string_view text) {
  static const std::pair<std::string_view, double> units[] = {
      {"min", 60.0},       {"h", 3600.0},     {"hours", 3600.0},  {"d", 86400.0},
      {"days", 86400.0},   {"day", 86400.0},  {"weeks", 604800.0}, {"months", 2.592e6},
      {"month", 2.592e6},  {"years", 3.1536e7}, {"year", 3.1536e7}};
  for (const auto& [unit, seconds] : units) {
    if (text.size() <= unit.size() || text.substr(text.size() - unit.size()) != unit) continue;
    std::string number(text.substr(0, text.size() - unit.size()));
    while (!number.empty() && number.back() == ' ') number.pop_back(); // "3 months"
    char* end = nullptr;
    double v = std::strtod(number.c_str(), &end);
    if (!number.empty() && end == number.c_str() + number.size()) return Seconds(v * seconds);
  }
  try {
    return parse_seconds(text);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("'" + std::string(text) + "' is not a duration (e.g. 3months, 90days, 2160h, 7.776e6s)");
  }
}

std::string to_string(CollectiveLatency c) { return c == CollectiveLatency::tree ? "tree" : "ring"; }

} // namespace trainsim
