// The collective algorithms a scenario may name, what each one does and which operations it
// supports: the catalogue the scenario rules check names against. sim/ binds an
// implementation to every name (sim/collectives.hpp); models/collective_cost prices them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trainsim {

enum class CollectiveOp { all_reduce, reduce_scatter, all_gather, all_to_all };
std::string to_string(CollectiveOp op);

struct CollectiveInfo {
  std::string name;
  std::string description;       ///< one line
  std::vector<CollectiveOp> ops; ///< what it can do
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
