// Topology generators, registered by name with a one-line description. A scenario's
// `system.topology` section names the generator; the rest of the section is its parameters,
// read strictly (unknown keys are rejected with a suggestion).
#pragma once

#include <string>
#include <vector>

#include "models/params.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

struct Generator {
  std::string name;
  std::string description;
  Topology (*build)(const Params& params);
};

/// All generators, in a stable order.
const std::vector<Generator>& generators();

/// Builds the topology named by the "generator" key of `params` from the remaining keys.
/// Throws InputError for an unknown generator (with a suggestion) or a bad parameter.
Topology build_topology(const Params& params);

} // namespace trainsim::topo
