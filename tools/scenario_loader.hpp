// Reads a scenario file strictly: every key known (or rejected with a suggestion), every
// value with its unit, every cross-field rule checked before anything is simulated. Each
// rejection is one InputError line naming the file, the key and the value.
#pragma once

#include <string>

#include "models/scenario.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

struct LoadedScenario {
  Scenario scenario;
  topo::Topology topology;
};

LoadedScenario load_scenario(const std::string& path);

/// Same as load_scenario, from text already in memory (`file` names it in messages).
LoadedScenario parse_scenario(const std::string& text, const std::string& file);

} // namespace trainsim
