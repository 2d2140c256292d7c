// `trainsim frontier`: the paper's utilization vs training-compute frontier, no simulation.
#pragma once

#include "tools/commands/cli_support.hpp"

#include <string>

#include "models/frontier.hpp"

namespace trainsim {

struct FrontierCommandOptions {
  FrontierOptions knobs;
  std::string duration;       ///< text for parse_duration; empty keeps the default
  std::string kernel_latency; ///< text with a unit; empty keeps the preset's
  std::string nvlink_latency,
      network_latency; ///< per collective step, text with a unit; empty keeps the default
  std::string out_dir = "frontier";
  std::string explain; ///< a training compute ("1.4e30" or "1.4e30FLOP"): explain that point only
  std::string scenarios; ///< when set, a directory for every replayable point as a scenario file
  bool force = false;    ///< write into a --scenarios directory that holds files already
};
int frontier_command(const FrontierCommandOptions& options);

/// Registers `frontier` and its options on the command line; parsing it sets `command`.
void add_frontier_command(CLI::App& app, cli::Command& command);

} // namespace trainsim
