// Topology generators, registered by name with a one-line description. A scenario's
// `system.topology` section names the generator; the rest of the section is its parameters,
// read strictly into the generator's struct (topologies/spec.hpp: parse_topology).
#pragma once

#include <string>
#include <vector>

#include "models/params.hpp"
#include "models/topology_spec.hpp"

namespace trainsim::topo {

struct Generator {
  std::string name;
  std::string description;
  /// Reads the section's keys (all but "generator") into this generator's struct, with its
  /// defaults.
  TopologySpec::Parameters (*parse)(const Params& section);
};

/// All generators, in a stable order.
const std::vector<Generator>& generators();

/// The generator named by the section's "generator" key; throws InputError for an unknown
/// one (with a suggestion) or a missing one.
const Generator& find_generator(const Params& section);

} // namespace trainsim::topo
