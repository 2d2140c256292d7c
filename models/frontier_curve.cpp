// The curves (frontier_curve, run_frontier): the compute levels of the sweep, the knee where
// utilization falls below its threshold and the wall where no plan finishes in time.
#include "models/frontier.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace trainsim {
namespace {

std::vector<Flop> compute_levels(const FrontierOptions& o) {
  std::vector<Flop> levels;
  double lo = std::log10(o.min_flop.value()), hi = std::log10(o.max_flop.value());
  int n = static_cast<int>(std::floor((hi - lo) * o.points_per_decade + 1e-9));
  for (int i = 0; i <= n; ++i)
    levels.emplace_back(std::pow(10.0, lo + static_cast<double>(i) / o.points_per_decade));
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
  auto last = std::find_if(c.points.rbegin(), c.points.rend(),
                           [](const FrontierPoint& p) { return p.feasible; });
  if (last == c.points.rend()) return;
  double lo = std::log10(last->shape.compute.value()), hi = lo + 1.0 / o.points_per_decade;
  if (last == c.points.rbegin()) return void(c.latency_wall = last->shape.compute);
  for (int i = 0; i < 8; ++i) {
    double mid = 0.5 * (lo + hi);
    (frontier_point(Flop(std::pow(10.0, mid)), o, moe).feasible ? lo : hi) = mid;
  }
  c.latency_wall = Flop(std::pow(10.0, lo));
}

// The levels of a curve, told to `progress` with `before` done ahead of them out of `total`.
FrontierCurve curve_of(const FrontierOptions& o, bool moe, const FrontierProgress& progress,
                       int before, int total) {
  FrontierCurve curve;
  curve.name = moe ? "moe" : "dense";
  curve.max_utilization = resolve_hardware(o).gpu.matmul_efficiency;
  if (progress && before == 0) progress(0, total);
  for (Flop c : compute_levels(o)) {
    curve.points.push_back(frontier_point(c, o, moe));
    if (progress) progress(before + static_cast<int>(curve.points.size()), total);
  }
  find_knee(curve, o.knee_fraction * curve.max_utilization);
  find_wall(curve, o, moe);
  return curve;
}

} // namespace

FrontierCurve frontier_curve(const FrontierOptions& o, bool moe, const FrontierProgress& progress) {
  return curve_of(o, moe, progress, 0, static_cast<int>(compute_levels(o).size()));
}

FrontierResult run_frontier(const FrontierOptions& o, const FrontierProgress& progress) {
  validate(o);
  int levels = static_cast<int>(compute_levels(o).size());
  FrontierCurve dense = curve_of(o, false, progress, 0, 2 * levels);
  return {
      o, resolve_hardware(o), {std::move(dense), curve_of(o, true, progress, levels, 2 * levels)}};
}

} // namespace trainsim
