#include "models/collective_cost.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <vector>

namespace trainsim {

namespace {

double choose(int n, int k) {
  if (k < 0 || k > n) return 0.0;
  double c = 1.0;
  for (int i = 0; i < k; ++i) c = c * (n - i) / (i + 1);
  return c;
}

// The probability that a token reaches the node holding experts [first, last): its groups are
// chosen uniformly, `picked` of `groups` equal groups of consecutive experts, and its top_k
// experts uniformly among the chosen groups' (what force-balanced random logits route). Sums,
// over how many of the node's groups are chosen and how many of its experts they hold, the
// chance that none of the top_k lands there.
double node_reached(int first, int last, int experts, int top_k, int groups, int picked) {
  int size = experts / groups, pool = picked * size;
  std::vector<int> overlap;
  for (int g = first / size; g * size < last; ++g)
    overlap.push_back(std::min(last, (g + 1) * size) - std::max(first, g * size));
  int m = static_cast<int>(overlap.size()), held = last - first;
  // ways[c][h]: subsets of the node's groups with c of them holding h of its experts.
  std::vector<std::vector<double>> ways(static_cast<size_t>(m) + 1,
                                        std::vector<double>(static_cast<size_t>(held) + 1));
  ways[0][0] = 1.0;
  for (int o : overlap)
    for (int c = m; c-- > 0;)
      for (int h = held - o; h >= 0; --h)
        ways[static_cast<size_t>(c) + 1][static_cast<size_t>(h + o)] +=
            ways[static_cast<size_t>(c)][static_cast<size_t>(h)];
  double reached = 0.0, subsets = choose(groups, picked);
  for (int c = 0; c <= m; ++c)
    for (int h = 0; h <= held; ++h) {
      double n = ways[static_cast<size_t>(c)][static_cast<size_t>(h)];
      if (n == 0.0) continue;
      double miss = 1.0;
      for (int i = 0; i < top_k; ++i)
        miss *= std::max(0, pool - h - i) / static_cast<double>(pool - i);
      reached += n * choose(groups - m, picked - c) / subsets * (1.0 - miss);
    }
  return reached;
}

} // namespace

double deepep_network_share(int experts, int top_k, int ep, int per_node, int groups,
                            int group_topk) {
  if (groups <= 0) groups = group_topk = 1;
  int on_node = std::min(experts, experts / ep * per_node), nodes = std::max(1, ep / per_node);
  double reached = 0.0; // summed over the nodes, whose groups may overlap them unalike
  for (int n = 0; n < nodes; ++n)
    reached += node_reached(n * on_node, (n + 1) * on_node, experts, top_k, groups, group_topk);
  double copies = static_cast<double>(top_k) * per_node / ep;
  return copies > 0 ? std::min(1.0, reached / nodes / copies) : 1.0;
}

double deepep_network_share(const ExpertRouting& r, int ep, int per_node) {
  if (r.experts <= 0) return 1.0;
  thread_local std::map<std::array<int, 6>, double> known;
  std::array<int, 6> shape{r.experts, r.top_k, ep, per_node, r.groups, r.group_topk};
  auto it = known.find(shape);
  if (it == known.end())
    it = known
             .emplace(shape, deepep_network_share(r.experts, r.top_k, ep, per_node, r.groups,
                                                  r.group_topk))
             .first;
  return it->second;
}

double CollectiveEfficiency::at(Bytes step) const {
  if (points.empty()) return 1.0;
  if (step <= points.front().step) return points.front().fraction;
  if (step >= points.back().step) return points.back().fraction;
  auto hi =
      std::find_if(points.begin(), points.end(), [&](const Point& p) { return p.step >= step; });
  auto lo = hi - 1;
  double f = std::log2(step / lo->step) / std::log2(hi->step / lo->step);
  return lo->fraction + f * (hi->fraction - lo->fraction);
}

double nvlink_fraction(std::string_view tier, Bytes step, const CollectiveEfficiency* nvlink) {
  return nvlink != nullptr && tier == "nvlink" ? nvlink->at(step) : 1.0;
}

namespace {

// One ring half: p-1 steps of alpha + n/(p B), each step's transfer at NCCL's efficiency for
// n/p bytes where the ring runs over NVLink; with c channels each ring moves n/(p c) per step
// side by side with the others, at the slowest pair's bandwidth (sim/collective_steps.cpp).
CollectiveCost ring_half(Bytes n, int p, const Tier& t, const CollectiveEfficiency* nvlink,
                         int channels = 1) {
  if (p <= 1) return {Seconds(0), Seconds(0), t.name};
  double steps = half_steps("ring", p);
  double fraction = nvlink_fraction(t.name, n / p, nvlink);
  return {t.alpha * steps, (n / t.bandwidth) * (steps / p / fraction / channels), t.name};
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
                    const std::vector<GroupTiers>& groups, const CollectiveEfficiency* nvlink,
                    Better better) {
  CollectiveCost chosen = collective_cost(algorithm, phases, n, p, groups.front(), nvlink);
  for (size_t i = 1; i < groups.size(); ++i) {
    CollectiveCost c = collective_cost(algorithm, phases, n, p, groups[i], nvlink);
    if (better(c.total(), chosen.total())) chosen = c;
  }
  return chosen;
}

} // namespace

int tree_segments(Bytes half) {
  constexpr double kSegmentBytes = 1024.0 * 1024.0; // NCCL pipelines ~0.5-1 MiB segments
  constexpr int kMaxSegments = 64;                  // caps fine mode's steps (and latency)
  return std::clamp(static_cast<int>(std::ceil(half.value() / kSegmentBytes)), 1, kMaxSegments);
}

int pat_steps(int p) {
  return p <= 1 ? 0 : static_cast<int>(std::bit_width(static_cast<unsigned>(p - 1)));
}

int pat_distance(int p, int step) {
  TRAINSIM_CHECK(0 <= step && step < pat_steps(p), "a step PAT does not take");
  return 1 << (pat_steps(p) - 1 - step);
}

// Before step s a member holds the blocks j 2^(K-s) places ahead of its own (j >= 0, below
// p); it receives from the member d = 2^(K-1-s) ahead those whose place plus d is below p:
// j 2^(K-s) + d < p, so ceil((p - d) / 2d) of them.
int pat_blocks(int p, int step) {
  int d = pat_distance(p, step);
  return (p - d + 2 * d - 1) / (2 * d);
}

bool auto_runs_tree(CollectiveOp op, Bytes n, int p, int channels, Seconds alpha,
                    BytesPerSecond bandwidth) {
  if (op != CollectiveOp::all_reduce || p <= 2) return false;
  double a = alpha.value(), bytes = n.value(), b = bandwidth.value();
  double tree = (2 * half_steps("tree", p) + tree_segments(n / 2.0) - 1) * a + 2 * bytes / b;
  double ring = 2 * (p - 1) * (a + bytes / (p * channels * b));
  return tree < ring;
}

CollectiveCost collective_price::ring(int phases, Bytes n, int p, const GroupTiers& g,
                                      const CollectiveEfficiency* nvlink) {
  return ring_half(n, p, g.ring, nvlink, g.channels) * phases;
}

CollectiveCost collective_price::tree(int /*phases*/, Bytes n, int p, const GroupTiers& g,
                                      const CollectiveEfficiency* /*nvlink*/) {
  return tree_floor(n, p, g.closest);
}

// Whichever of the two `auto` runs costs at least the cheaper one's floor.
CollectiveCost collective_price::nccl_auto(int phases, Bytes n, int p, const GroupTiers& g,
                                           const CollectiveEfficiency* nvlink) {
  CollectiveCost ring = collective_price::ring(phases, n, p, g, nvlink);
  CollectiveCost tree = tree_floor(n, p, g.closest);
  return phases == 2 && tree.total() < ring.total() ? tree : ring;
}

CollectiveCost collective_price::pat(int phases, Bytes n, int p, const GroupTiers& g,
                                     const CollectiveEfficiency* nvlink) {
  if (!g.one_per_node) return collective_price::ring(phases, n, p, g, nvlink);
  double share = (p - 1.0) / p * phases;
  return {g.closest.alpha * (pat_steps(p) * phases), (n / g.closest.bandwidth) * share,
          g.closest.name};
}

// Direct runs inside one NVSwitch node (its catalogue entry's one_node), where each member's
// one port carries all its bytes: exact there.
CollectiveCost collective_price::direct(int phases, Bytes n, int p, const GroupTiers& g,
                                        const CollectiveEfficiency* /*nvlink*/) {
  double share = (p - 1.0) / p * phases;
  return {g.closest.alpha * phases, (n / g.closest.bandwidth) * share, g.closest.name};
}

CollectiveCost collective_price::hierarchical(int phases, Bytes n, int p, const GroupTiers& g,
                                              const CollectiveEfficiency* nvlink) {
  if (g.block <= 1) return collective_price::ring(phases, n, p, g, nvlink);
  int nodes = p / g.block;
  return (ring_half(n, g.block, g.within, nvlink) +
          ring_half(n / g.block, nodes, g.across, nvlink)) *
         phases;
}

CollectiveCost collective_price::pairwise(Bytes n, int p, const RoundsTier& rounds,
                                          const std::vector<GroupTiers>& /*rings*/,
                                          const ExpertRouting& /*routing*/) {
  return {rounds.alpha, Seconds(n.value() / p * rounds.seconds_per_byte), rounds.name};
}

CollectiveCost collective_price::deepep(Bytes n, int p, const RoundsTier& rounds,
                                        const std::vector<GroupTiers>& rings,
                                        const ExpertRouting& routing) {
  CollectiveCost best{Seconds(0), Seconds(0), rounds.name};
  bool first = true;
  for (const GroupTiers& t : rings) {
    int block = t.block > 1 && p % t.block == 0 ? t.block : 1, nodes = p / block;
    double copy = n.value() / p;
    double share = deepep_network_share(routing, p, block);
    const Tier& hop = block > 1 ? t.across : t.closest;
    CollectiveCost c{Seconds(0), Seconds(0), rounds.name};
    if (nodes > 1)
      c.latency += hop.alpha,
          c.transfer += Seconds((nodes - 1) * copy * block * share / hop.bandwidth.value());
    if (block > 1)
      c.latency += t.within.alpha,
          c.transfer += Seconds((block - 1) * nodes * copy / t.within.bandwidth.value());
    if (first || c.total() < best.total()) best = c;
    first = false;
  }
  return best;
}

CollectiveCost collective_cost(std::string_view algorithm, int phases, Bytes n, int p,
                               const GroupTiers& g, const CollectiveEfficiency* nvlink) {
  if (p <= 1) return {Seconds(0), Seconds(0), "none"};
  const CollectiveInfo* info = find_collective(algorithm);
  TRAINSIM_CHECK(info != nullptr && info->price != nullptr,
                 "no bound price for collective '" + std::string(algorithm) + "'");
  return info->price(phases, n, p, g, nvlink);
}

CollectiveCost cheapest(std::string_view algorithm, int phases, Bytes n, int p,
                        const std::vector<GroupTiers>& groups, const CollectiveEfficiency* nvlink) {
  return pick(algorithm, phases, n, p, groups, nvlink, [](Seconds a, Seconds b) { return a < b; });
}

CollectiveCost dearest(std::string_view algorithm, int phases, Bytes n, int p,
                       const std::vector<GroupTiers>& groups, const CollectiveEfficiency* nvlink) {
  return pick(algorithm, phases, n, p, groups, nvlink, [](Seconds a, Seconds b) { return a > b; });
}

} // namespace trainsim
