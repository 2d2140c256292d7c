// The rules of a mixture of experts' execution keys (docs/scenario-format.md): the capacity
// factor and the dispatcher. Part of check_scenario() (models/scenario_rules.hpp); internal
// to models/.
#pragma once

#include "models/scenario.hpp"

namespace trainsim {

/// Throws InputError naming the key and its value for the first rule the scenario breaks.
void check_moe_execution(const Scenario& scenario);

} // namespace trainsim
