// The rules of the pipeline schedule's keys (docs/scenario-format.md): the interleaved
// schedule's chunks and microbatch groups, DualPipeV's stages and microbatches, and the most
// passes the programs hold. Part of check_scenario() (models/scenario_rules.hpp); internal to
// models/.
#pragma once

#include "models/scenario.hpp"

namespace trainsim {

/// Throws InputError naming the key and its value for the first rule the schedule breaks.
void check_schedule(const Scenario& scenario);

} // namespace trainsim
