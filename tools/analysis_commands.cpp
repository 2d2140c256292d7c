#include "tools/analysis_commands.hpp"

#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "tools/fabric_summary.hpp"
#include "tools/frontier_output.hpp"
#include "tools/output_file.hpp"
#include "tools/run_command.hpp"
#include "tools/scenario_loader.hpp"

namespace trainsim {
namespace {

template <class Parse>
auto parse_flag(const std::string& flag, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", flag, text, e.what());
  }
}

std::string flop_or_none(const std::optional<Flop>& f) {
  if (!f) return "none in the sweep";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2g FLOP", f->value());
  return buffer;
}

} // namespace

int bounds_command(const BoundsOptions& options) {
  // The bound holds the graph and the schedule's longest path, not a simulation.
  LoadedScenario loaded =
      load_scenario(options.scenario.empty() ? default_scenario_path() : options.scenario, {Footprint::bound, {}});
  BoundResult bound = closed_form_bound(loaded.scenario, fabric_summary(loaded.topology, loaded.scenario.execution));
  if (options.json) std::cout << bound_json(bound).dump(2) << "\n";
  else std::cout << format_bound(bound);
  return 0;
}

int frontier_command(const FrontierCommandOptions& options) {
  FrontierOptions knobs = options.knobs;
  if (!options.duration.empty()) knobs.duration = parse_flag("--duration", options.duration, parse_duration);
  if (!options.kernel_latency.empty())
    knobs.kernel_latency = parse_flag("--kernel-latency", options.kernel_latency, parse_seconds);
  if (!options.nvlink_latency.empty())
    knobs.nvlink_latency = parse_flag("--nvlink-latency", options.nvlink_latency, parse_seconds);
  if (!options.network_latency.empty())
    knobs.network_latency = parse_flag("--network-latency", options.network_latency, parse_seconds);
  validate(knobs); // run_frontier checks them too; a bad knob must not leave an empty --out behind
  prepare_output_dir(options.out_dir, "--out"); // before the few seconds of computing
  FrontierResult result = run_frontier(knobs);
  write_frontier(result, options.out_dir);
  for (const FrontierCurve& curve : result.curves)
    std::cout << curve.name << ": utilization knee " << flop_or_none(curve.utilization_knee) << ", latency wall "
              << flop_or_none(curve.latency_wall) << "\n";
  std::cout << "wrote " << options.out_dir << "/frontier.csv, frontier.json, frontier.svg\n";
  return 0;
}

} // namespace trainsim
