#include "models/gpu_speed.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "models/check.hpp"

namespace trainsim {
namespace {

// The standard normal quantile by bisection on erfc: slow next to a rational approximation,
// but exact to the bracket's width and called once per rank.
double normal_quantile(double u) {
  double lo = -10.0, hi = 10.0;
  for (int i = 0; i < 64; ++i) {
    double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < u ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// splitmix64: a fixed shuffle of the ranks, so the slow GPUs sit nowhere in particular (not all
// in one node or one stage) and every run of a scenario puts them in the same places.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

bool uneven(const Scenario& s) {
  return s.system.gpu.speed_spread > 0.0 && s.model.applied_profile().uneven_gpus;
}

double quantile(size_t i, size_t n) {
  return (static_cast<double>(i) + 0.5) / static_cast<double>(n);
}

} // namespace

double slowdown_at(double u, double spread) {
  TRAINSIM_CHECK(u > 0.0 && u < 1.0, "a quantile strictly between 0 and 1");
  double z = normal_quantile(u);
  return z > 0.0 ? 1.0 / (1.0 - spread * z) : 1.0;
}

double slowest_gpu(const Scenario& s) {
  if (s.faults.any()) {
    std::vector<double> all = kernel_slowdowns(s);
    return *std::max_element(all.begin(), all.end());
  }
  auto n = static_cast<size_t>(s.execution.gpus());
  return uneven(s) ? slowdown_at(quantile(n - 1, n), s.system.gpu.speed_spread) : 1.0;
}

std::vector<double> kernel_slowdowns(const Scenario& s) {
  std::vector<double> spread = spread_slowdowns(s), faults = fault_slowdowns(s);
  if (faults.empty()) return spread;
  if (spread.empty()) return faults;
  for (size_t r = 0; r < faults.size(); ++r) faults[r] *= spread[r];
  return faults;
}

std::vector<double> spread_slowdowns(const Scenario& s) {
  if (!uneven(s)) return {};
  double spread = s.system.gpu.speed_spread;
  auto n = static_cast<size_t>(s.execution.gpus());
  std::vector<std::uint64_t> order(n);
  std::iota(order.begin(), order.end(), std::uint64_t{0});
  std::sort(order.begin(), order.end(),
            [](std::uint64_t a, std::uint64_t b) { return mix(a) < mix(b); });
  std::vector<double> slowdown(n, 1.0);
  // Only the upper half of the quantiles is slower than the preset's figures.
  for (size_t i = n / 2; i < n; ++i) slowdown[order[i]] = slowdown_at(quantile(i, n), spread);
  return slowdown;
}

} // namespace trainsim
