// `trainsim goodput SCENARIO`: what a long run of the scenario's step delivers when its
// components fail (models/goodput.hpp, docs/faults.md "Goodput"): the step simulated once,
// the checkpoint priced from the state it writes, then Young-Daly's interval and goodput and a
// seeded Monte-Carlo over the run, against the checkpoint interval and the cluster size.
#pragma once

#include "tools/commands/cli_support.hpp"

#include <string>

namespace trainsim {

struct GoodputOptions {
  std::string scenario;
  std::string storage_bandwidth; ///< required: the storage tier's write bandwidth, all of it
  std::string restart;           ///< required: relaunch and restore after a failure
  std::string interval;          ///< checkpoint interval; empty: Young-Daly's
  double hours = 24.0 * 30;      ///< the run's wall time
  double failures_per_gpu_hour = 0; ///< 0: Llama 3's (kLlama3InterruptionsPerGpuHour)
  bool async = false; ///< copy to host memory, then write beside the steps
  unsigned long long seed = 1;
};

int goodput_command(const GoodputOptions& options);

/// Registers `goodput` and its options on the command line; parsing it sets `command`.
void add_goodput_command(CLI::App& app, cli::Command& command);

} // namespace trainsim
