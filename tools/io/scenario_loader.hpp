// Reads a scenario file strictly: every key known (or rejected with a suggestion), every
// value with its unit, every cross-field rule checked before anything is simulated. Each
// rejection is one InputError line naming the file, the key and the value. A scenario that
// would not fit in memory is refused (Error, ExitCode::resources) before anything is built.
#pragma once

#include <string>

#include "models/scenario.hpp"
#include "tools/study/resource_guard.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

struct LoadedScenario {
  Scenario scenario;
  topo::Topology topology;
};

struct LoadOptions {
  /// What the caller will hold in memory; the memory guard prices it from the parameters and
  /// refuses before the topology is built (tools/study/resource_guard.hpp).
  Footprint footprint = Footprint::simulation;
  GuardParams guard;
};

LoadedScenario load_scenario(const std::string& path, const LoadOptions& options = {});

/// Same as load_scenario, from text already in memory (`file` names it in messages).
LoadedScenario parse_scenario(const std::string& text, const std::string& file, const LoadOptions& options = {});

} // namespace trainsim
