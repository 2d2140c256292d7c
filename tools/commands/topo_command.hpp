// `trainsim topo describe|export`: the scenario's fabric without simulating it.
#pragma once

#include <string>

namespace trainsim {

struct TopoOptions {
  std::string scenario;
  std::string format = "dot"; ///< export: dot, graphml or json
  std::string out;            ///< export: file to write; empty for stdout
};

int topo_describe_command(const TopoOptions& options);
int topo_export_command(const TopoOptions& options);

} // namespace trainsim
