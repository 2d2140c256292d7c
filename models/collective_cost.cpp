#include "models/collective_cost.hpp"

namespace trainsim {
namespace {

// One ring half: p-1 steps of alpha + n/(p B).
CollectiveCost ring_half(Bytes n, int p, const Tier& t) {
  if (p <= 1) return {Seconds(0), Seconds(0), t.name};
  double steps = half_steps("ring", p);
  return {t.alpha * steps, (n / t.bandwidth) * (steps / p), t.name};
}

CollectiveCost operator*(CollectiveCost c, double k) {
  return {c.latency * k, c.transfer * k, c.tier};
}
CollectiveCost operator+(CollectiveCost a, const CollectiveCost& b) {
  // The tier that moves the most time names the sum.
  return {a.latency + b.latency, a.transfer + b.transfer,
          a.transfer >= b.transfer ? a.tier : b.tier};
}

CollectiveCost tree_floor(Bytes n, int p, const Tier& closest) {
  double height = half_steps("tree", p);
  return {closest.alpha * (2 * height), n / closest.bandwidth, closest.name};
}

template <class Better>
CollectiveCost pick(std::string_view algorithm, int phases, Bytes n, int p,
                    const std::vector<GroupTiers>& groups, Better better) {
  CollectiveCost chosen = collective_cost(algorithm, phases, n, p, groups.front());
  for (size_t i = 1; i < groups.size(); ++i) {
    CollectiveCost c = collective_cost(algorithm, phases, n, p, groups[i]);
    if (better(c.total(), chosen.total())) chosen = c;
  }
  return chosen;
}

} // namespace

CollectiveCost collective_cost(std::string_view algorithm, int phases, Bytes n, int p,
                               const GroupTiers& g) {
  if (p <= 1) return {Seconds(0), Seconds(0), "none"};
  if (algorithm == "tree") return tree_floor(n, p, g.closest);
  if (algorithm == "hierarchical" && g.block > 1) {
    int nodes = p / g.block;
    return (ring_half(n, g.block, g.within) + ring_half(n / g.block, nodes, g.across)) * phases;
  }
  return ring_half(n, p, g.ring) * phases;
}

CollectiveCost cheapest(std::string_view algorithm, int phases, Bytes n, int p,
                        const std::vector<GroupTiers>& groups) {
  return pick(algorithm, phases, n, p, groups, [](Seconds a, Seconds b) { return a < b; });
}

CollectiveCost dearest(std::string_view algorithm, int phases, Bytes n, int p,
                       const std::vector<GroupTiers>& groups) {
  return pick(algorithm, phases, n, p, groups, [](Seconds a, Seconds b) { return a > b; });
}

} // namespace trainsim
