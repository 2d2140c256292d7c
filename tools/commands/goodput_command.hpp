// `trainsim goodput SCENARIO`: what a long run of the scenario's step delivers when its
// components fail (models/goodput.hpp, docs/faults.md "Goodput"): the step simulated once, the
// checkpoint's write over the fabric to the storage tier simulated, the failure rate summed
// over the components (models/reliability.hpp), then Young-Daly's interval and goodput and a
// seeded Monte-Carlo over the run, against the checkpoint interval and the cluster size. The
// options override the scenario's `reliability:` section.
#pragma once

#include "tools/commands/cli_support.hpp"

#include <string>

namespace trainsim {

struct GoodputOptions {
  std::string scenario;
  std::string storage_bandwidth; ///< the storage tier's write bandwidth; empty: the section's
  std::string restart;           ///< relaunch and restore after a failure; empty: the section's
  std::string interval;          ///< checkpoint interval; empty: the section's or Young-Daly's
  double hours = -1;             ///< the run's wall time; negative: the section's duration
  double failures_per_gpu_hour = 0; ///< 0: the components' rates (models/reliability.hpp)
  bool async = false; ///< copy to host memory, then write beside the steps (or the section's)
  long long seed = -1; ///< negative: the section's
  std::string out;     ///< directory for goodput.json and goodput.svg; empty: none
};

int goodput_command(const GoodputOptions& options);

/// Registers `goodput` and its options on the command line; parsing it sets `command`.
void add_goodput_command(CLI::App& app, cli::Command& command);

} // namespace trainsim
