#include "models/moe_load.hpp"

#include <algorithm>
#include <limits>

#include "models/seeded_shuffle.hpp"
#include "models/workload.hpp"

namespace trainsim {

std::vector<double> expert_shares(const ExecutionSpec& e) {
  if (e.moe_imbalance <= 0 || e.ep <= 1) return {};
  auto n = static_cast<size_t>(e.ep);
  std::vector<double> shares(n);
  for (size_t i = 0; i < n; ++i)
    shares[i] = 1.0 - e.moe_imbalance + 2.0 * e.moe_imbalance * static_cast<double>(i) /
                                            static_cast<double>(n - 1);
  seeded_shuffle(shares, static_cast<unsigned long long>(e.moe_imbalance_seed));
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
