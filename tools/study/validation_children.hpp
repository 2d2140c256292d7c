// Validation's simulations run side by side, each in a child process (sim/child_process.hpp):
// the sections' rows cross the pipe as JSON. A child that fails stops validate with its own
// exit code and message, never a skipped row: a failure in a replay is a bug to see.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/error.hpp"
#include "sim/child_process.hpp"
#include "sim/progress.hpp"
#include "tools/study/validation.hpp"
#include "tools/study/variant_runner.hpp"

namespace trainsim {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BoundCheck, name, features, gpus, simulated_s, bound_s, blame)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PublishedCheck, name, source, assumptions, convention, gpus,
                                   published, predicted, bound, step_s, bound_s, breakdown)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BridgeCheck, name, release, system, workload, gpus, dense,
                                   published, predicted, step_s, bound_s, breakdown, memory)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CollectiveCheck, algorithm, op, graph, fidelity, ranks, bytes,
                                   simulated_s, formula_s, algbw, busbw, exact_formula)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GapCause, cause, seconds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FrontierCheck, compute_flop, plan, gpus, closed_form_utilization,
                                   simulated_mfu, step_closed_s, step_sim_s, note, breakdown,
                                   simulated_mfu_serial, step_sim_serial_s, blame, two_d, gap,
                                   bundled)

/// A frontier point replayed, or why it was not.
struct FrontierOutcome {
  FrontierCheck check;
  std::string skipped; ///< non-empty: not replayed, and why
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FrontierOutcome, check, skipped)

namespace validation {

/// Runs `tasks` side by side, as many at a time as the machine has cores, and returns their
/// rows in task order; `progress` gains each task's `weights` entry (or one) as it finishes.
template <class T>
std::vector<T> side_by_side(const std::vector<std::function<T()>>& tasks, sim::Progress& progress,
                            const std::vector<double>* weights = nullptr) {
  std::vector<std::function<std::string()>> encoded;
  for (const auto& task : tasks)
    encoded.push_back([&task] { return nlohmann::json(task()).dump(); });
  std::vector<T> rows;
  for (sim::ChildResult<std::string>& r :
       sim::run_in_children(encoded, default_jobs(), &progress, weights)) {
    if (!r.value) throw Error(r.code, r.error);
    rows.push_back(nlohmann::json::parse(*r.value).get<T>());
  }
  return rows;
}

} // namespace validation
} // namespace trainsim
