// A scenario made ready to simulate: its rules checked and its topology built, without the
// command line's machine guard (tools/io/scenario_loader.hpp adds it). Part of the study
// library, so that the simulator's tests build scenarios made in code without the CLI.
#pragma once

#include <functional>

#include "models/scenario.hpp"
#include "topologies/build.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

struct LoadedScenario {
  Scenario scenario;
  topo::Topology topology;
};

/// Runs once the scenario's rules hold, before the graph is built, with its counted size.
using BeforeBuild = std::function<void(const Scenario&, const topo::TopologySize&)>;

/// Warns of implausible link figures, checks the scenario's rules (models/scenario_rules.hpp;
/// with `force_memory` a plan over the GPU's memory is priced anyway, with a warning), runs
/// `before_build` where the size is known without building (imported files are not), then
/// builds the topology and checks its GPU count.
LoadedScenario build_unguarded(Scenario scenario, bool force_memory = false,
                               const BeforeBuild& before_build = {});

} // namespace trainsim
