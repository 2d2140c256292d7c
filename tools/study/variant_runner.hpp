// Runs many scenarios for `trainsim compare` and `trainsim sweep`: each in its own local
// process (a pool of --jobs), each reduced to the few figures a comparison table shows.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tools/io/scenario_loader.hpp"

namespace trainsim {

/// One simulated scenario (fast mode), as a row of a comparison. Times in seconds, mean per GPU.
struct VariantResult {
  int gpus = 0;
  double step_time_s = 0;
  double mfu = 0;
  double tokens_per_s = 0;
  double tp_comm_s = 0, pp_comm_s = 0, dp_comm_s = 0, ep_comm_s = 0, cp_comm_s = 0,
         bubble_s = 0;            ///< exposed, blocking
  std::string busiest_tier;       ///< the tier whose busiest link direction is the most utilized
  double busiest_utilization = 0; ///< that link direction's busy time / step time
  double bound_s = 0;             ///< closed-form lower bound
  std::string bound_limiting;
  std::string error; ///< why the variant failed or was refused; the figures are then zero
  bool refused = false; ///< the loader refused it (a rule, memory): it was not simulated
  /// Where the step ends: the ranks that finish last (rank, finish in seconds), latest first.
  std::vector<std::pair<int, double>> last_ranks{};
  /// The busiest link directions outside NVLink (name, busy time = bytes / bandwidth),
  /// busiest first.
  std::vector<std::pair<std::string, double>> busiest_links{};
  /// The step's critical path in a line (critical_path_line()), when followed.
  std::string critical_path{};

  /// "ok", "refused" (not simulated: `error` says why) or "failed" (its simulation stopped).
  [[nodiscard]] std::string status() const {
    return refused ? "refused" : error.empty() ? "ok" : "failed";
  }
};

/// The row of a variant the loader refused with `why`.
VariantResult refused_variant(const std::string& why);

/// The exit code of a table of variants (compare, sweep), whose rows are all written: 0 when
/// at least one was simulated and none failed (a refused one's row says why, and a warning
/// counts them); ExitCode::simulation when one failed; ExitCode::input when every one was
/// refused, so nothing was simulated.
int table_exit_code(const std::vector<VariantResult>& results);

/// Simulates `loaded` in fast mode with link statistics and reduces it to a VariantResult;
/// with `critical_path`, the step's too (sim/critical_path.hpp).
VariantResult run_variant(const LoadedScenario& loaded, bool critical_path = false);

/// Runs every task in a child process, at most `jobs` at a time; results in task order. A
/// task that throws (or whose process dies) gives a result whose `error` says why. `command`
/// leads the progress line ("sweep: 3 of 12 variants simulated, ...").
std::vector<VariantResult>
run_in_processes(const std::vector<std::function<VariantResult()>>& tasks, int jobs,
                 const std::string& command);

/// The number of processors, for --jobs defaults.
int default_jobs();

} // namespace trainsim
