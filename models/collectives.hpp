// The collective algorithms a scenario may name: one entry each, with what it does, which
// operations it supports, where it may run and the bound's price of it
// (models/collective_cost.hpp). The scenario rules check names against it; sim/ binds an
// implementation to every name (sim/collectives.hpp), which also says what one call takes
// alone. Adding an algorithm is an entry here, its price and its implementation.
// validate's oracle (tools/study/validate_collectives.cpp) prices the algorithms again on
// purpose, independently, to check both.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/units.hpp"

namespace trainsim {

struct CollectiveCost;
struct CollectiveEfficiency;
struct GroupTiers;

/// An algorithm's price without contention: `phases` halves (reduce-scatter or all-gather: 1;
/// an all-reduce: 2) of n bytes over the p members of a group whose tiers are `g`, ring steps
/// over NVLink at `nvlink`'s efficiency when given (models/collective_cost.hpp).
using CollectivePriceFn = CollectiveCost(int phases, Bytes n, int p, const GroupTiers& g,
                                         const CollectiveEfficiency* nvlink);
using CollectivePrice = CollectivePriceFn*;

enum class CollectiveOp { all_reduce, reduce_scatter, all_gather, all_to_all };
std::string to_string(CollectiveOp op);

struct CollectiveInfo {
  std::string name;
  std::string description;         ///< one line
  std::vector<CollectiveOp> ops;   ///< what it can do
  CollectivePrice price = nullptr; ///< the bound's; none for all-to-all, priced by its rounds
  bool one_node = false;           ///< runs only inside one NVSwitch node (the scenario rules)
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
