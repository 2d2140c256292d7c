// What a topology is, in figures: counts per kind and tier, bisection bandwidth, diameter and
// oversubscription. Generated fabrics report their structural values (FabricFacts); imported
// graphs are measured (max-flow, BFS). Definitions in docs/topologies.md.
#pragma once

#include <iosfwd>
#include <vector>

#include "topologies/topology.hpp"

namespace trainsim::topo {

struct TierStats {
  Tier tier = Tier::nvlink;
  int links = 0;
  BytesPerSecond capacity; ///< sum over the tier's links, per direction
  BytesPerSecond slowest;  ///< the tier's smallest link bandwidth
  BytesPerSecond fastest;  ///< the tier's largest link bandwidth
};

struct Description {
  int gpus = 0;
  int gpus_per_node = 1; ///< NVLink domain size
  int nodes = 0;
  int nvswitches = 0;
  int nics = 0;
  std::vector<int> switches_per_level; ///< [level] = count; level 1 = leaf, 2 = spine, 3 = core
  std::vector<TierStats> tiers;        ///< tiers that have links, in Tier order
  int links = 0;
  BytesPerSecond bisection;   ///< per direction
  int diameter = 0;           ///< most links on a GPU-to-GPU route
  bool diameter_exact = true; ///< false: a lower bound (large imported graphs)
  double oversubscription = 1.0;
  bool measured = false; ///< figures measured on the graph rather than known from the structure
  std::string modelled_as; ///< FabricFacts::modelled_as
};

/// Counts in O(V + E); for imported graphs also measures (see docs/topologies.md for costs).
Description summarize(const Topology& topology);

/// Prints the description as a few "name: value" lines (the `trainsim topo describe` output).
void describe(const Topology& topology, std::ostream& out);

/// Maximum flow, per direction, from GPU ranks [0, N/2) to [N/2, N) through the links'
/// bandwidths: the bisection of the rank halves. O(V^2 sqrt(E)) push-relabel; for tests and
/// imported graphs, not for 100k-GPU fabrics.
BytesPerSecond rank_halves_cut(const Topology& topology);

} // namespace trainsim::topo
