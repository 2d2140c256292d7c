#include "models/fabric.hpp"

#include <algorithm>
#include <limits>

#include "models/collectives.hpp"

namespace trainsim {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The slower of two routes for a transfer of unknown size: less bandwidth first, then more latency.
bool slower(const PairCost& a, const PairCost& b) {
  return a.bandwidth < b.bandwidth || (a.bandwidth == b.bandwidth && a.latency > b.latency);
}

// A group of one has no pairs: nothing to cross, and nothing a bound may divide by zero.
PairCost no_pair() { return {Seconds(0), BytesPerSecond(kInfinity), "none"}; }

Tier tier_of(const PairCost& c) { return {c.latency, c.bandwidth, c.tier}; }

// What every one of two groups offers at least: the smaller latency and the larger bandwidth.
Tier most_favourable(const Tier& a, const Tier& b) {
  return {std::min(a.alpha, b.alpha), std::max(a.bandwidth, b.bandwidth),
          a.bandwidth >= b.bandwidth ? a.name : b.name};
}

Tier least_favourable(const Tier& a, const Tier& b) {
  bool b_slower = b.bandwidth < a.bandwidth || (b.bandwidth == a.bandwidth && b.alpha > a.alpha);
  return b_slower ? b : a;
}

Tier ring_tier(const GroupSpan& span, const PairCosts& pairs) {
  return tier_of(ring_cost(span, pairs).slowest);
}

// The most favourable neighbour pair of a ring: least latency and most bandwidth of any pair.
Tier closest_pair(const GroupSpan& g, const PairCosts& pairs) {
  if (g.size < 2) return tier_of(no_pair());
  Tier best = tier_of(pairs(g.member(0), g.member(g.ring_next(0))));
  for (int i = 1; i < g.size; ++i)
    best = most_favourable(best, tier_of(pairs(g.member(i), g.member(g.ring_next(i)))));
  return best;
}

GroupTiers group_tiers(GroupSpan g, const PairCosts& pairs, int gpus_per_node) {
  g.ring_block = node_block(g, gpus_per_node); // rings are rail-aligned, as the simulator's
  GroupTiers t{ring_tier(g, pairs), closest_pair(g, pairs), g.ring_block, {}, {}};
  t.channels = g.ring_channels();
  t.one_per_node = one_per_node(g, gpus_per_node);
  if (t.block == 1 || t.block == g.size) return t.block = 1, t;
  // A rank's own block ring, and the rings across the blocks: it ends its all-gather only once
  // every ring across has delivered to its block-mates, so the slowest of those counts, and of
  // the block rings only the most favourable is sure to.
  for (int me = 0; me < g.size; ++me) {
    if (me % t.block == 0)
      t.within = me == 0 ? ring_tier(block_of(g, t.block, me), pairs)
                         : most_favourable(t.within, ring_tier(block_of(g, t.block, me), pairs));
    if (me < t.block)
      t.across = me == 0
                     ? ring_tier(across_blocks(g, t.block, me), pairs)
                     : least_favourable(t.across, ring_tier(across_blocks(g, t.block, me), pairs));
  }
  return t;
}

std::vector<GroupTiers> over_groups(const Layout& layout, GroupKind kind, int stage,
                                    const PairCosts& pairs, int gpus_per_node) {
  std::vector<GroupTiers> out;
  for (const GroupSpan& span : layout.spans(kind, stage)) {
    GroupTiers t = group_tiers(span, pairs, gpus_per_node);
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(std::move(t));
  }
  return out;
}

RoundsTier over_members(const Layout& layout, int stage, const PairCosts& pairs) {
  RoundsTier best{Seconds(kInfinity), kInfinity, "none"};
  for (const GroupSpan& span : layout.spans(GroupKind::ep, stage))
    for (int me = 0; me < span.size && span.size > 1; ++me) {
      RoundsCost r = rounds_cost(span, me, pairs);
      if (r.seconds_per_byte < best.seconds_per_byte) best.name = r.tier;
      best.alpha = std::min(best.alpha, r.latency);
      best.seconds_per_byte = std::min(best.seconds_per_byte, r.seconds_per_byte);
    }
  return best.name == "none" ? RoundsTier{Seconds(0), 0.0, "none"} : best;
}

Tier pipeline_sends(const Layout& layout, int stage, const PairCosts& pairs) {
  if (layout.pp() < 2) return tier_of(no_pair());
  Tier best{Seconds(kInfinity), BytesPerSecond(0), ""};
  int first = stage * layout.ranks_per_stage();
  for (int r = first; r < first + layout.ranks_per_stage(); ++r)
    for (bool forward : {true, false})
      best = most_favourable(best, tier_of(pairs(r, layout.pipeline_peer(r, forward))));
  return best;
}

} // namespace

RingCost ring_cost(const GroupSpan& g, const PairCosts& pairs) {
  RingCost ring{no_pair(), Seconds(0), true};
  bool first = true;
  for (int c = 0; c < g.ring_channels() && g.size > 1; ++c)
    for (int i = 0; i < g.size; ++i) {
      PairCost pair = pairs(g.member(i), g.member(g.ring_next(i, c)));
      if (!first)
        ring.uniform &=
            pair.bandwidth == ring.slowest.bandwidth && pair.latency == ring.slowest.latency;
      if (first || slower(pair, ring.slowest)) ring.slowest = pair;
      ring.max_latency = std::max(ring.max_latency, pair.latency);
      first = false;
    }
  return ring;
}

RoundsCost rounds_cost(const GroupSpan& g, int me, const PairCosts& pairs) {
  RoundsCost r{Seconds(0), 0.0, "none"};
  PairCost slowest = no_pair();
  for (int k = 1; k < g.size; ++k) {
    PairCost out = pairs(g.member(me), g.member(me + k));
    PairCost in = pairs(g.member(me - k), g.member(me));
    const PairCost& round = slower(in, out) ? in : out;
    r.latency += round.latency;
    r.seconds_per_byte += 1.0 / round.bandwidth.value();
    if (slower(round, slowest)) slowest = round;
  }
  r.tier = slowest.tier;
  return r;
}

FabricSummary summarize_fabric(const ExecutionSpec& e, const PairCosts& pairs, int gpus_per_node) {
  Layout layout(e);
  FabricSummary f;
  for (int j = 0; j < e.pp; ++j) {
    StageFabric s;
    s.tp = over_groups(layout, GroupKind::tp, j, pairs, gpus_per_node);
    s.dp = over_groups(layout, GroupKind::dp, j, pairs, gpus_per_node);
    s.edp = over_groups(layout, GroupKind::edp, j, pairs, gpus_per_node);
    if (e.cp > 1) s.cp = over_groups(layout, GroupKind::cp, j, pairs, gpus_per_node);
    if (e.tp_2d > 1) s.tp2 = over_groups(layout, GroupKind::tp2, j, pairs, gpus_per_node);
    if (e.experts_fold() && e.expert_tp() > 1)
      s.etp = over_groups(layout, GroupKind::etp, j, pairs, gpus_per_node);
    s.ep = over_members(layout, j, pairs);
    const CollectiveInfo* exchange = find_collective(e.ep_collective);
    if (e.moe_dispatcher == MoeDispatcher::allgather || (exchange != nullptr && exchange->node_hops))
      s.ep_rings = over_groups(layout, GroupKind::ep, j, pairs, gpus_per_node);
    s.tp_axes_queue = tp_axes_queue(e, gpus_per_node);
    s.pp_send = pipeline_sends(layout, j, pairs);
    f.stages.push_back(std::move(s));
  }
  return f;
}

PairCosts two_tier_pairs(int domain, PairCost nvlink, PairCost network) {
  return [=](int src, int dst) { return src / domain == dst / domain ? nvlink : network; };
}

} // namespace trainsim
