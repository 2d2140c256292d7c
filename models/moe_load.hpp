// How the routed tokens spread over an expert layer's EP ranks (execution.moe_imbalance): each
// rank's expert rows against the balanced share the step program prices. The simulator runs
// each rank's routed kernels and all-to-all bytes at its own share; the closed form keeps the
// balanced share, so it stays a lower bound; the memory check holds the busiest rank's.
#pragma once

#include <vector>

#include "models/scenario.hpp"

namespace trainsim {

/// The routed tokens each EP member position (0 .. ep - 1, the same in every EP group and
/// layer) receives, over the balanced share: moe_imbalance = s spreads them evenly from 1 - s
/// to 1 + s (mean 1, the busiest 1 + s), placed over the positions by a shuffle drawn from
/// moe_imbalance_seed. Empty where routing is balanced (s = 0 or ep = 1).
std::vector<double> expert_shares(const ExecutionSpec& e);

/// What each EP member's routed kernels and all-to-all bytes take over the program's: its
/// share of expert_shares(), with a capacity factor c capped at c (the tokens over it are
/// dropped) over the balanced rows the program prices (routed_share()); all 1 when inputs are
/// padded to capacity, which every rank then runs whatever the routing. Empty where balanced.
std::vector<double> expert_loads(const ModelSpec& m, const ExecutionSpec& e);

/// The largest of expert_loads() (1 when balanced): the memory check's busiest rank.
double busiest_expert_load(const ModelSpec& m, const ExecutionSpec& e);

} // namespace trainsim
