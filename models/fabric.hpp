// What the fabric offers each parallel group, in the terms the closed-form bound prices:
// per pipeline stage, the tier each group's traffic actually crosses. Computed from a
// function that gives the route between two ranks (tools/fabric_summary reads it off the
// topology graph; two_tier_pairs() is an idealised fabric for the frontier and tests), over
// the groups of the rank layout (models/layout.hpp). The simulator paces its merged ring
// flows with the same ring_cost(), so the bound and the replay see the same slowest pair.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/layout.hpp"
#include "models/units.hpp"

namespace trainsim {

/// The route between two ranks: its latency, the bandwidth of its slowest link, and the
/// name of that link's tier ("nvlink", "leaf", "global", ...).
struct PairCost {
  Seconds latency;
  BytesPerSecond bandwidth;
  std::string tier;
};
using PairCosts = std::function<PairCost(int src, int dst)>;

/// A ring over a group's members (member i sends to member group.ring_next(i, c) on each of
/// its ring_channels() channels). Its rounds run in lockstep, so the slowest neighbour pair of
/// any channel paces every round.
struct RingCost {
  PairCost slowest;    ///< the pair with the least bandwidth (ties: the most latency)
  Seconds max_latency; ///< the most latency of any pair
  bool uniform = true; ///< every pair has the same bandwidth and latency
};
RingCost ring_cost(const GroupSpan& group, const PairCosts& pairs);

/// One member's p-1 pairwise all-to-all rounds (round k: send to member me + k, receive
/// from me - k, both before the next round). A round lasts at least its slower side's
/// alpha + n / B, so the rounds of n bytes each take at least latency + n x seconds_per_byte.
struct RoundsCost {
  Seconds latency;
  double seconds_per_byte = 0;
  std::string tier; ///< the tier of the slowest round
};
RoundsCost rounds_cost(const GroupSpan& group, int me, const PairCosts& pairs);

/// One step of a ring (or one send) over a tier: at least alpha + bytes / bandwidth.
struct Tier {
  Seconds alpha;
  BytesPerSecond bandwidth;
  std::string name;
  friend bool operator==(const Tier&, const Tier&) = default;
};

/// The idealised two-tier fabric the frontier prices on (two_tier_pairs() below routes over
/// the same): domains of `domain` consecutive GPUs joined by `nvlink`, all other pairs by
/// `network`.
struct TwoTierFabric {
  int domain = 8;
  Tier nvlink;
  Tier network;
  /// The tier a group crosses when it and the groups nested inside it span `span` consecutive
  /// ranks (NestedSpans, models/layout.hpp): NVLink when they fit in one domain.
  [[nodiscard]] const Tier& tier_for(double span) const {
    return span <= domain ? nvlink : network;
  }
};

/// An all-to-all's p-1 rounds of n bytes: at least alpha + n x seconds_per_byte.
struct RoundsTier {
  Seconds alpha;
  double seconds_per_byte = 0;
  std::string name;
};

/// What one group offers each collective algorithm: the slowest neighbour pair of its ring
/// (a ring's pace), the most favourable one (a floor for a tree's edges: consecutive members
/// are the closest pairs in every generated topology), and the two rings of a hierarchical
/// collective when the group splits into node blocks.
struct GroupTiers {
  Tier ring;
  Tier closest;
  int block = 1; ///< members per node (node_block() of models/layout.hpp); 1: no split
  Tier within;   ///< a node block's ring: the most favourable block's slowest pair (block > 1)
  Tier across;   ///< the rings over the blocks: the least favourable one's slowest pair (block > 1)
  int channels = 1; ///< rings side by side, each with 1/channels of the bytes (ring_channels())
  bool one_per_node = false; ///< every member on a node of its own (one_per_node())
  friend bool operator==(const GroupTiers&, const GroupTiers&) = default;
};

/// What one pipeline stage's groups cross. The closed form prices a collective inside the
/// passes at the stage's most favourable group (every pipeline runs at least that fast) and a
/// reduction after the passes at its least favourable one (the step waits for every group).
struct StageFabric {
  std::vector<GroupTiers> tp, dp, edp, cp; ///< the stage's groups of each kind, alike ones once
  std::vector<GroupTiers> tp2;             ///< 2-D TP's second axis; empty without one
  std::vector<GroupTiers> etp;         ///< experts split over part of TP (Layout: ETP); else empty
  RoundsTier ep;                       ///< the most favourable EP member's all-to-all rounds
  /// The EP groups' rings and node blocks: what the all-gather dispatcher's collectives and an
  /// all-to-all with node hops (models/collectives.hpp) cross; empty where neither runs.
  std::vector<GroupTiers> ep_rings;
  Tier pp_send;                        ///< the most favourable send to the next or previous stage
  bool tp_axes_queue = false;          ///< models/layout.hpp: tp_axes_queue()
};

struct FabricSummary {
  std::vector<StageFabric> stages; ///< by pipeline stage
};

/// Every stage's groups under `execution`'s layout, priced by `pairs`, on nodes of
/// `gpus_per_node` consecutive ranks.
FabricSummary summarize_fabric(const ExecutionSpec& execution, const PairCosts& pairs,
                               int gpus_per_node);

/// An idealised fabric: ranks in the same domain of `domain` consecutive GPUs talk over
/// `nvlink`, others over `network`.
PairCosts two_tier_pairs(int domain, PairCost nvlink, PairCost network);

} // namespace trainsim
