// The search over plans for one compute level (frontier_point): the grid of degrees, the
// smallest dp that meets the step budget, and the tie rules. docs/closed-form.md, "The search".
#include "models/frontier.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "models/pipeline_path.hpp"

namespace trainsim {
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
  for (int n = 1; n <= layers; n = next_degree(n))
    pp.push_back(n), pp.push_back((layers + n - 1) / n);
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
  PlanSearch(const ModelShape& s, const FrontierHardware& hw, const FrontierOptions& o,
             Seconds budget)
      : s_(s), hw_(hw), o_(o), budget_(budget) {}

  void run() {
    std::vector<int> stages = pipeline_degrees(s_.layers);
    for (int y = 1; y <= std::min(kMaxTp, o_.max_tp_2d); y = next_degree(y))
      for (int x = 1; x * y <= kMaxTp; x = next_degree(x))
        for (int pp : stages)
          for (int ep = 1; ep <= s_.layer.experts; ep *= 2)
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
    return hw_.gpu.matmul_efficiency * p.microbatches /
           pipeline_slots(p.microbatches, p.pp, p.interleave);
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
    for (p.interleave = 2; p.interleave <= o_.max_interleave && p.interleave * p.pp <= s_.layers;
         p.interleave *= 2)
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
  bool better_or_tied(double utilization) const {
    return utilization > best_times.utilization * (1.0 - kTie);
  }

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
  const FrontierHardware& hw_;
  const FrontierOptions& o_;
  Seconds budget_;
};

std::string describe(const ParallelPlan& p) {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "dp %.4g x tp %d x %d x pp %d, ep %d, %d microbatches, interleave %d", p.dp,
                p.tp_1d, p.tp_2d, p.pp, p.ep, p.microbatches, p.interleave);
  return buf;
}

std::string infeasible_reason(const PlanSearch& search, const FrontierPoint& point,
                              Seconds duration) {
  if (!search.any_fits)
    return "no plan within max_gpus fits in HBM with at least one token per microbatch";
  const PlanTimes& t = search.fastest_times;
  auto [needs, budget] = format_apart(t.step, point.step_budget);
  return "no plan finishes in " + format(duration) + ": the fastest (" + describe(search.fastest) +
         ") needs " + needs + " per step, budget " + budget + ", bound by " + t.binding;
}

} // namespace

FrontierPoint frontier_point(Flop compute, const FrontierOptions& o, bool moe) {
  FrontierPoint point;
  point.shape = shape_for(compute, o, moe);
  point.step_budget = o.duration / point.shape.steps;
  FrontierHardware hw = resolve_hardware(o);
  PlanSearch search(point.shape, hw, o, point.step_budget);
  search.run();
  point.feasible = search.found;
  point.plan = search.found ? search.best : search.fastest;
  point.times = search.found ? search.best_times : search.fastest_times;
  if (!search.found) point.reason = infeasible_reason(search, point, o.duration);
  return point;
}

} // namespace trainsim
