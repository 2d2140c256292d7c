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
#include "topologies/registry.hpp"

namespace trainsim {
namespace {

// Describing holds the graph only, exporting the graph and its text: a fabric too large to
// simulate may still be drawn.
LoadedScenario load(const TopoOptions& options, LoadOptions guard) {
  return load_scenario(options.scenario.empty() ? default_scenario_path() : options.scenario, guard);
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
  auto options = std::make_shared<TopoOptions>(); // the callbacks keep it alive
  auto& topo = *options;
  auto* cmd = app.add_subcommand("topo", "describe or export a scenario's topology graph");
  cmd->require_subcommand(1);
  auto* describe = cmd->add_subcommand("describe", "GPUs, switches, links per tier, bisection, diameter");
  describe->add_option("scenario", topo.scenario, "scenario file (default: scenarios/default.yaml)");
  describe->callback([options, &command] { command = [options] { return topo_describe_command(*options); }; });
  auto* exporter = cmd->add_subcommand("export", "the graph as Graphviz DOT, GraphML or JSON");
  exporter->add_option("scenario", topo.scenario, "scenario file (default: scenarios/default.yaml)");
  exporter->add_option("--format", topo.format, "dot, graphml or json")->capture_default_str();
  exporter->add_option("-o,--out", topo.out, "file to write (default: standard output)");
  exporter->callback([options, &command] { command = [options] { return topo_export_command(*options); }; });
}

} // namespace trainsim
