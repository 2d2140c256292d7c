// `trainsim topo describe|export`: the scenario's fabric without simulating it.
#pragma once

#include "tools/commands/cli_support.hpp"

#include <string>

namespace trainsim {

struct TopoOptions {
  std::string scenario;
  std::string format = "dot"; ///< export: dot, graphml or json
  std::string out;            ///< export: file to write; empty for stdout
};

int topo_describe_command(const TopoOptions& options);
int topo_export_command(const TopoOptions& options);

/// Registers `topo` and its options on the command line; parsing it sets `command`.
void add_topo_command(CLI::App& app, cli::Command& command);

} // namespace trainsim
