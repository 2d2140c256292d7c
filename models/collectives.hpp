// The collective algorithms a scenario may name: one entry each, with what it does, which
// operations it supports, where it may run and the bound's price of it
// (models/collective_cost.hpp). The scenario rules, the fabric summary and the bound read
// only the entry; sim/ binds an implementation to every name (sim/collectives.hpp), which
// also says what one call takes alone. Adding an algorithm is an entry here, its price and
// its implementation.
// validate's oracle (tools/study/validate_collectives.cpp) prices the algorithms again on
// purpose, independently, to check both.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/units.hpp"

namespace trainsim {

struct CollectiveCost;
struct CollectiveEfficiency;
struct GroupTiers;
struct RoundsTier;

/// An algorithm's price without contention: `phases` halves (reduce-scatter or all-gather: 1;
/// an all-reduce: 2) of n bytes over the p members of a group whose tiers are `g`, ring steps
/// over NVLink at `nvlink`'s efficiency when given (models/collective_cost.hpp).
using CollectivePriceFn = CollectiveCost(int phases, Bytes n, int p, const GroupTiers& g,
                                         const CollectiveEfficiency* nvlink);
using CollectivePrice = CollectivePriceFn*;

/// The routing of the tokens an expert all-to-all carries: an algorithm that sends each token
/// once per node rather than once per expert (DeepEP) prices its bytes by it. experts 0: not
/// known (a collective replayed without a model), every copy is sent.
struct ExpertRouting {
  int experts = 0;
  int top_k = 0;
  /// The simulator's: each EP member's routed rows over the balanced share (expert_loads(),
  /// models/moe_load.hpp), none when balanced; and whether the call carries tokens to their
  /// experts (Op::to_experts). The bound prices the balanced share, a lower bound.
  const std::vector<double>* loads = nullptr;
  bool to_experts = false;
  /// Group-limited routing (ModelSpec::router_groups, router_group_topk); 0: none.
  int groups = 0;
  int group_topk = 0;
  /// What member `me` sends member `to` of an all-to-all, over the balanced n / p: the
  /// receiver's load towards the experts, the sender's back; 1 when balanced.
  [[nodiscard]] double pair_load(int me, int to) const {
    if (loads == nullptr || loads->empty()) return 1.0;
    return (*loads)[static_cast<size_t>(to_experts ? to : me)];
  }
};
struct ModelSpec;
/// A model's routing: its experts, top_k and groups; `loads` the simulator's (or none).
ExpertRouting expert_routing(const ModelSpec& model, const std::vector<double>* loads = nullptr);

/// An all-to-all's price without contention: n bytes out of each of the p members of an EP
/// group whose most favourable member's rounds are `rounds` and whose rings and node blocks
/// are `rings` (filled where the entry's node_hops is set; models/fabric.hpp).
using ExchangePriceFn = CollectiveCost(Bytes n, int p, const RoundsTier& rounds,
                                       const std::vector<GroupTiers>& rings,
                                       const ExpertRouting& routing);
using ExchangePrice = ExchangePriceFn*;

enum class CollectiveOp : std::uint8_t { all_reduce, reduce_scatter, all_gather, all_to_all };
std::string to_string(CollectiveOp op);

struct CollectiveInfo {
  std::string name;
  std::string description;         ///< one line
  std::vector<CollectiveOp> ops;   ///< what it can do
  CollectivePrice price = nullptr; ///< the bound's, for the reductions and gathers
  bool one_node = false;           ///< runs only inside one NVSwitch node (the scenario rules)
  ExchangePrice exchange = nullptr; ///< the bound's, for an all-to-all
  /// Its all-to-all splits the group into node blocks and forwards inside them over NVLink: it
  /// needs nodes of more than one GPU (the scenario rules) and the EP rings (the fabric).
  bool node_hops = false;
  [[nodiscard]] bool supports(CollectiveOp op) const;
};

/// Every algorithm, in a stable order.
const std::vector<CollectiveInfo>& collective_catalogue();
/// The entry called `name`, or nullptr.
const CollectiveInfo* find_collective(std::string_view name);
std::vector<std::string> collective_names();
/// The algorithm a scenario uses for `op` when it names none: "pairwise" for all-to-all,
/// "ring" for the others.
std::string default_collective(CollectiveOp op);

} // namespace trainsim
