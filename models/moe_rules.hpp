// The rules of a mixture of experts' execution keys (docs/scenario-format.md): the capacity
// factor, the dispatcher and DeepEP's all-to-all; and the line every key of one gives on a
// dense model. Part of check_scenario() (models/scenario_rules.hpp); internal
// to models/.
#pragma once

#include <string>

#include "models/scenario.hpp"

namespace trainsim {

/// Why a key of a mixture of experts is refused on a model of `experts` (1: dense): the one
/// line both the loader's model keys and these rules give.
std::string experts_only(int experts);

/// Throws InputError naming the key and its value for the first rule the scenario breaks.
void check_moe_execution(const Scenario& scenario);

} // namespace trainsim
