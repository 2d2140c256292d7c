#include "tools/commands/topo_command.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

#include <memory>

#include <CLI/CLI.hpp>

#include "tools/commands/cli_support.hpp"
#include "models/error.hpp"
#include "tools/io/output_file.hpp"
#include "tools/commands/run_command.hpp"
#include "tools/io/scenario_loader.hpp"
#include "topologies/describe.hpp"
#include "topologies/export.hpp"

namespace trainsim {
namespace {

// Describing holds the graph only, exporting the graph and its text: a fabric too large to
// simulate may still be drawn.
LoadedScenario load(const TopoOptions& options, LoadOptions guard) {
  return load_scenario(options.scenario.empty() ? default_scenario_path() : options.scenario,
                       guard);
}

} // namespace

int topo_describe_command(const TopoOptions& options) {
  LoadedScenario loaded = load(options, {Footprint::graph, {}});
  topo::describe(loaded.topology, std::cout);
  return 0;
}

int topo_export_command(const TopoOptions& options) {
  LoadOptions guard{Footprint::exported, {}};
  guard.guard.costs = export_costs(options.format);
  LoadedScenario loaded = load(options, guard);
  std::ostringstream text;
  topo::export_topology(loaded.topology, options.format, text);
  if (options.out.empty()) {
    std::cout << text.str();
    return 0;
  }
  write_text_file(options.out, text.str(), "--out");
  return 0;
}

void add_topo_command(CLI::App& app, cli::Command& command) {
  auto options = std::make_shared<TopoOptions>(); // describe and export share it; their callbacks
                                                  // keep it alive
  auto* cmd = app.add_subcommand("topo", "describe or export a scenario's topology graph");
  cmd->require_subcommand(1);
  auto* describe = cli::add_command(*cmd, options, command, "describe",
                                    "GPUs, switches, links per tier, bisection, diameter",
                                    topo_describe_command);
  describe->add_option("scenario", options->scenario,
                       "scenario file (default: scenarios/default.yaml)");
  auto* exporter =
      cli::add_command(*cmd, options, command, "export",
                       "the graph as Graphviz DOT, GraphML or JSON", topo_export_command);
  exporter->add_option("scenario", options->scenario,
                       "scenario file (default: scenarios/default.yaml)");
  exporter->add_option("--format", options->format, "dot, graphml or json")->capture_default_str();
  exporter->add_option("-o,--out", options->out, "file to write (default: standard output)");
}

} // namespace trainsim
