// What a collective over one group costs at least, by algorithm, from the tiers the group
// crosses (models/fabric.hpp): the closed form's price of the collectives that
// sim/collective_*.cpp replay. Each is the algorithm's own schedule without contention, or a
// floor below it where the schedule is not priced exactly (tree).
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "models/check.hpp"
#include "models/collectives.hpp"
#include "models/fabric.hpp"
#include "models/scenario.hpp"

namespace trainsim {

/// DeepEP's network volume: of the routed copies one member sends to a node of `per_node`
/// EP members (experts / ep experts each), the share it sends over the network, each token
/// once whichever of that node's experts it goes to. Under uniform routing of top_k distinct
/// experts of `experts`, a token reaches the node with probability
/// q = 1 - C(experts - E_n, top_k) / C(experts, top_k), E_n = per_node x experts / ep, against
/// top_k x per_node / ep copies on average: the share is q over that (1 where each token goes
/// to at most one of the node's experts). Group-limited routing (DeepSeek-V3's node-limited
/// routing: `groups` equal groups of consecutive experts, each token choosing `group_topk` of
/// them and its top_k experts among theirs) keeps a token off the nodes whose groups it did
/// not choose; the share is then averaged over the nodes, which groups may overlap unalike.
/// groups 0: no groups.
double deepep_network_share(int experts, int top_k, int ep, int per_node, int groups = 0,
                            int group_topk = 0);
/// The share for `routing`'s model, or 1 where it names none (experts 0: every copy is sent).
/// Every all-to-all call of a run asks it again, so each shape's figure is kept once computed.
double deepep_network_share(const ExpertRouting& routing, int ep, int per_node);

struct CollectiveCost {
  Seconds latency;  ///< alpha per step on the critical path
  Seconds transfer; ///< bytes / bandwidth
  std::string tier; ///< the tier whose bandwidth the transfer is priced at
  [[nodiscard]] Seconds total() const { return latency + transfer; }
};

/// `phases` halves (reduce-scatter or all-gather: 1; an all-reduce: 2) of `algorithm` ("ring",
/// "hierarchical", "direct", "pat", "tree") on n bytes over the p members of a group:
/// - ring: p-1 steps of alpha + n/(p B) per half, at the ring's slowest pair;
/// - hierarchical: (b-1) steps of n/b in the node's ring and (P-1) steps of n/(bP) in the ring
///   across nodes per half (a plain ring when the group does not split into node blocks);
/// - direct: one step of alpha and (p-1) n / p bytes out of every member per half, at the
///   closest pair's latency and bandwidth: exact inside one NVSwitch node, where the scenario
///   rules keep it (a GPU with several ports, as on a torus, could beat it);
/// - pat: with one member per node, ceil(log2 p) steps of the closest pair's alpha and
///   (p-1) n / p bytes out of every member per half at its bandwidth (a floor: a step's peer
///   may be farther); a ring otherwise, as it runs;
/// - tree (all-reduce only): at least 2 ceil(log2 p) steps of the closest pair's alpha and n
///   bytes into every rank at its bandwidth, a floor under the pipelined double binary tree.
/// With `nvlink`, a ring (or a hierarchical collective's ring) over the NVLink tier moves its
/// steps at nvlink->at(bytes per step) of the tier's bandwidth (nvlink_fraction()).
CollectiveCost collective_cost(std::string_view algorithm, int phases, Bytes n, int p,
                               const GroupTiers& group,
                               const CollectiveEfficiency* nvlink = nullptr);

/// Each algorithm's collective_cost(), as its catalogue entry names it (models/collectives.hpp):
/// a group of p >= 2 members.
namespace collective_price {
CollectivePriceFn ring, tree, hierarchical, nccl_auto, direct, pat;
/// The all-to-alls, on a group of p >= 2 members:
/// - pairwise: p-1 rounds of n/p bytes at the rounds' alpha and seconds per byte;
/// - deepep: DeepEP's two hops on the group's cheapest rings: each member sends the
///   deduplicated tokens for every other node (deepep_network_share() of the block's copies)
///   to its rail peer there, at once over its own network link, then forwards each node
///   peer's copies from every node over NVLink. Where the group does not split into node
///   blocks, the first hop goes to every member at the closest pair's bandwidth.
ExchangePriceFn pairwise, deepep;
} // namespace collective_price

/// NCCL's fraction of the bandwidth of the tier named `tier` for ring steps of `step` bytes:
/// nvlink->at(step) on "nvlink", 1 elsewhere or without a curve (the simulator's rings too).
double nvlink_fraction(std::string_view tier, Bytes step, const CollectiveEfficiency* nvlink);

/// Alpha steps on the critical path of one half (reduce-scatter or all-gather) of `algorithm`
/// over p members: p - 1 for a "ring", ceil(log2 p) for a "tree" (up or down it); 0 for p <= 1.
/// p may be a real number: the frontier's search relaxes the count of DP replicas. Inline:
/// the frontier's search calls it a few times for each of its millions of plans.
inline double half_steps(std::string_view algorithm, double p) {
  bool tree = algorithm == "tree";
  TRAINSIM_CHECK(tree || algorithm == "ring", "half_steps() prices ring and tree collectives only");
  if (p <= 1) return 0.0;
  return tree ? std::ceil(std::log2(p)) : p - 1.0;
}

/// PAT's schedule (sim/collective_pat.cpp) over p members: ceil(log2 p) steps; step s moves
/// pat_blocks(p, s) blocks of n/p to the member pat_distance(p, s) = 2^(K-1-s) places back,
/// K = pat_steps(p), and the blocks of all steps add up to p - 1.
int pat_steps(int p);
int pat_distance(int p, int step);
int pat_blocks(int p, int step);

/// The pipelined double binary tree's segments per half of an all-reduce (about 1 MiB each, 1
/// to 64: sim/collective_tree.cpp pipelines them).
int tree_segments(Bytes half);

/// What `auto` runs (NCCL's choice by size; its tuner prices each algorithm and takes the
/// fastest): for an all-reduce of n bytes over p ranks, the double binary tree when its time
/// without contention, (2H + C - 1) alpha + 2n/B (H = ceil(log2 p), C = tree_segments(n/2)),
/// is below the ring's, 2(p-1)(alpha + n/(p c B)) with its c channels, both at the ring's
/// slowest pair (alpha, B); the ring otherwise, and for the other operations.
bool auto_runs_tree(CollectiveOp op, Bytes n, int p, int channels, Seconds alpha,
                    BytesPerSecond bandwidth);

/// Of a stage's groups, the one whose collective costs least or most.
CollectiveCost cheapest(std::string_view algorithm, int phases, Bytes n, int p,
                        const std::vector<GroupTiers>& groups,
                        const CollectiveEfficiency* nvlink = nullptr);
CollectiveCost dearest(std::string_view algorithm, int phases, Bytes n, int p,
                       const std::vector<GroupTiers>& groups,
                       const CollectiveEfficiency* nvlink = nullptr);

} // namespace trainsim
