// The rules across keys that a scenario must pass before its topology is built or anything is
// simulated (docs/scenario-format.md, "Checks across keys"). Each failure is one InputError
// line naming the file, the key and the value.
#pragma once

#include <string>

#include "models/scenario.hpp"

namespace trainsim {

/// dp x tp x pp equals the GPUs of the topology (computed without overflow: each degree may be
/// as large as an int).
void check_gpu_total(const ExecutionSpec& e, double topology_gpus, const std::string& file);

/// Everything that depends on the model and the execution only: pp within the layers, the
/// interleaving, experts and heads divisible, and the most loaded GPU's memory within HBM.
void check_fit(const Scenario& s);

} // namespace trainsim
