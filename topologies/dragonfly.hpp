// GPU nodes on a dragonfly (Kim et al. 2008): `groups` groups of `routers_per_group` routers
// (switches of level 0, named "switchN": they are no tier of a tree),
// all-to-all inside a group (the `spine` tier), and `global_links` global links per router
// (the `global` tier) spread so that every pair of groups gets the same number of them.
// Node n's NICs attach to router n / nodes_per_router (the `leaf` tier).
// Minimal routing: local hop to the gateway router owning the chosen global link, the global
// link, local hop to the destination router; among parallel global links between two groups
// the flow hash picks one (ECMP).
#pragma once

#include "models/params.hpp"
#include "topologies/build.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

struct DragonflyParams {
  NodeParams node;              ///< the node (defaults: DGX H100)
  int groups = 9;               ///< g; the balanced maximum is routers_per_group * global_links + 1
  int routers_per_group = 4;    ///< a
  int global_links = 2;         ///< h per router; (groups - 1) must divide a * h
  int nodes_per_router = 1;     ///< p; a router has p * gpus_per_node NIC ports
  BytesPerSecond global_bandwidth{50e9}; ///< per direction per global link
  Seconds global_latency{1e-6};           ///< per global hop (long optical cables)

  static DragonflyParams from(const Params& params);
};

Topology build_dragonfly(const DragonflyParams& p);
/// The graph build_dragonfly makes of `p`: the nodes, the routers, and their NIC, local and global links.
TopologySize dragonfly_size(const DragonflyParams& p);
Topology build_dragonfly(const Params& params);

} // namespace trainsim::topo
