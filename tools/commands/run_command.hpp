// `trainsim run`: load a scenario, simulate one training step, report it.
#pragma once

#include "tools/commands/cli_support.hpp"

#include <string>

#include "sim/collectives.hpp"

namespace trainsim {

struct RunOptions {
  std::string scenario; ///< path of the scenario file
  std::string out_dir;  ///< when set, result.json is written there
  sim::Fidelity fidelity = sim::Fidelity::fast;
  bool json = false;      ///< print result.json on stdout instead of the text report
  bool link_stats = true; ///< record bytes per link direction (small cost per comm)
  bool critical_path = true; ///< follow the step's critical path (sim/critical_path.hpp)
  std::string trace_file; ///< when set, the Chrome trace-event JSON of the traced ranks
  std::string
      trace_ranks; ///< rank selection (tools/formats/trace_writer.hpp); empty: bounded default
  std::string links_csv; ///< when set, per-link statistics as CSV
  bool bundle_rails = true; ///< fast mode runs rail 0 for all rails where the step allows it
  bool bundle_replicas = false; ///< fast mode runs DP replica 0 for all (sim::SimOptions)
  bool force_memory = false;  ///< price a plan that does not fit in the GPU's memory
};

/// Returns the process exit code; throws trainsim::Error for anything the user can fix.
int run_command(const RunOptions& options);

/// The scenario `trainsim run` uses when none is given: default.yaml of the scenarios folder
/// found at run time (tools/io/data_dir.hpp).
std::string default_scenario_path();

/// Registers `run` and its options on the command line; parsing it sets `command`.
void add_run_command(CLI::App& app, cli::Command& command);

} // namespace trainsim
