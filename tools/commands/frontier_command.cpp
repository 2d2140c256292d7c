#include "tools/commands/frontier_command.hpp"

#include <iostream>
#include <stdexcept>

#include "models/error.hpp"
#include "tools/formats/frontier_output.hpp"
#include "tools/formats/text.hpp"
#include "tools/io/output_file.hpp"

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

std::string flop_or_none(const std::optional<Flop>& f) { return f ? formatted("%.2g FLOP", f->value()) : "none in the sweep"; }

} // namespace

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
