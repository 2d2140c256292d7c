// `trainsim bounds SCENARIO`: the closed-form lower bound on the step time, term by term.
#pragma once

#include "tools/commands/cli_support.hpp"

#include <string>

namespace trainsim {

struct BoundsOptions {
  std::string scenario;
  bool json = false;
};
int bounds_command(const BoundsOptions& options);

/// Registers `bounds` and its options on the command line; parsing it sets `command`.
void add_bounds_command(CLI::App& app, cli::Command& command);

} // namespace trainsim
