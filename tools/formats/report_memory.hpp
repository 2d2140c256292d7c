// What each pipeline stage's GPU holds in HBM against its capacity (weights, gradients,
// optimizer state, activations: the memory check's figures, models/workload.hpp), for the
// text report and result.json of every run, not only when the check refuses a plan.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "models/scenario.hpp"

namespace trainsim {

/// A "memory" block of the text report: the capacity, then the stages (all of them up to
/// four, else the most and the least loaded).
void print_memory(std::ostream& out, const Scenario& scenario);

/// {"capacity_bytes", "stages": [{"stage", "weights_bytes", ..., "total_bytes"}, ...]}.
nlohmann::ordered_json memory_json(const Scenario& scenario);

} // namespace trainsim
