#include "tools/commands/bounds_command.hpp"

#include <iostream>

#include <memory>

#include <CLI/CLI.hpp>

#include "tools/commands/cli_support.hpp"
#include "models/closed_form.hpp"
#include "tools/commands/run_command.hpp"
#include "tools/formats/frontier_output.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tools/study/fabric_summary.hpp"

namespace trainsim {

int bounds_command(const BoundsOptions& options) {
  // The bound holds the graph and the schedule's longest path, not a simulation.
  LoadedScenario loaded =
      load_scenario(options.scenario.empty() ? default_scenario_path() : options.scenario,
                    {Footprint::bound, {}});
  BoundResult bound = closed_form_bound(loaded.scenario,
                                        fabric_summary(loaded.topology, loaded.scenario.execution));
  if (options.json)
    std::cout << bound_json(bound).dump(2) << "\n";
  else
    std::cout << format_bound(bound);
  return 0;
}

void add_bounds_command(CLI::App& app, cli::Command& command) {
  auto [cmd, bounds] = cli::add_command<BoundsOptions>(
      app, command, "bounds", "the closed-form lower bound on a scenario's step time, term by term",
      bounds_command);
  cmd->add_option("scenario", bounds.scenario, "scenario file (default: scenarios/default.yaml)");
  cmd->add_flag("--json", bounds.json, "print the bound as JSON");
}

} // namespace trainsim
