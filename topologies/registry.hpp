// Topology generators, registered by name with a one-line description. A scenario's
// `system.topology` section names the generator; the rest of the section is its parameters,
// read strictly (unknown keys are rejected with a suggestion).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/params.hpp"
#include "topologies/build.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

struct Generator {
  std::string name;
  std::string description;
  Topology (*build)(const Params& params);
  /// The graph the parameters describe, counted without building anything (none for an
  /// imported file, known only once it is read).
  std::optional<TopologySize> (*size)(const Params& params);
};

/// All generators, in a stable order.
const std::vector<Generator>& generators();

/// Builds the topology named by the "generator" key of `params` from the remaining keys.
/// Throws InputError for an unknown generator (with a suggestion) or a bad parameter.
Topology build_topology(const Params& params);

/// The GPUs `params` describe, checked and counted without building the graph, so that a
/// caller can refuse a mismatch before a large fabric allocates. None for imported files.
std::optional<double> topology_gpu_count(const Params& params);

/// The GPUs, vertices and links `params` describe, checked as build_topology checks them and
/// counted without building, so that a caller can refuse what would not fit in memory. None
/// for imported files.
std::optional<TopologySize> topology_size(const Params& params);

} // namespace trainsim::topo
