// Readers of the scenario's flat sections, shared by tools/io/scenario_loader.cpp: a GPU's
// figures (over a preset's or on their own). The model's and the execution's keys are declared
// in models/ (models/section_keys.hpp).
// Each rejection is one InputError naming the file, the key and the value
// (docs/scenario-format.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "models/error.hpp"
#include "models/params.hpp"
#include "models/scenario.hpp"

namespace trainsim {

/// Overrides of a preset's figures (or every figure of a custom GPU), checked one by one;
/// `p` keeps its other keys for the caller.
GpuSpec read_gpu_figures(const Params& p, GpuSpec g);

} // namespace trainsim
