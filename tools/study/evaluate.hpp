// What every command does with a simulated step: simulate it, summarize it (breakdown, MFU,
// link statistics), bound it with the closed form and, when it is well above the bound, say
// why. `run`, `compare`, `sweep` and `validate` all evaluate a scenario through here.
#pragma once

#include <cstddef>

#include "models/closed_form.hpp"
#include "sim/simulation.hpp"
#include "tools/study/scenario_build.hpp"
#include "tools/study/step_summary.hpp"

namespace trainsim {

struct Evaluation {
  sim::SimResult result;
  StepSummary summary; ///< with the bound and, above kBlameRatio x the bound, the blame attached
  BoundResult bound;
};

/// Simulates `loaded` with `options`; the summary lists the `busiest` link directions of each
/// tier when link statistics are recorded.
Evaluation evaluate(const LoadedScenario& loaded, const sim::SimOptions& options,
                    size_t busiest = 3);

} // namespace trainsim
