#include "models/moe_load.hpp"

#include <algorithm>
#include <limits>
#include <random>
#include <utility>

#include "models/workload.hpp"

namespace trainsim {

std::vector<double> expert_shares(const ExecutionSpec& e) {
  if (e.moe_imbalance <= 0 || e.ep <= 1) return {};
  auto n = static_cast<size_t>(e.ep);
  std::vector<double> shares(n);
  for (size_t i = 0; i < n; ++i)
    shares[i] = 1.0 - e.moe_imbalance + 2.0 * e.moe_imbalance * static_cast<double>(i) /
                                            static_cast<double>(n - 1);
  // Fisher-Yates on our own mapping of the generator's words, so the placement does not
  // depend on a standard library's shuffle.
  std::mt19937_64 rng(static_cast<unsigned long long>(e.moe_imbalance_seed));
  for (size_t i = n - 1; i > 0; --i) std::swap(shares[i], shares[rng() % (i + 1)]);
  return shares;
}

std::vector<double> expert_loads(const ModelSpec& m, const ExecutionSpec& e) {
  std::vector<double> loads = expert_shares(e);
  if (loads.empty()) return loads;
  if (e.moe_pad_to_capacity) return std::vector<double>(loads.size(), 1.0);
  double capacity = e.moe_capacity_factor > 0 ? e.moe_capacity_factor
                                                 : std::numeric_limits<double>::infinity();
  double balanced = routed_share(m, e);
  for (double& l : loads) l = std::min(l, capacity) / balanced;
  return loads;
}

double busiest_expert_load(const ModelSpec& m, const ExecutionSpec& e) {
  std::vector<double> loads = expert_loads(m, e);
  return loads.empty() ? 1.0 : *std::max_element(loads.begin(), loads.end());
}

} // namespace trainsim
