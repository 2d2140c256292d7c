// GPU nodes on a dragonfly (Kim et al. 2008): `groups` groups of `routers_per_group` routers
// (switches of level 0, named "switchN": they are no tier of a tree),
// all-to-all inside a group (the `spine` tier), and `global_links` global links per router
// (the `global` tier) spread so that every pair of groups gets the same number of them.
// Node n's NICs attach to router n / nodes_per_router (the `leaf` tier).
// Minimal routing: local hop to the gateway router owning the chosen global link, the global
// link, local hop to the destination router; among parallel global links between two groups
// the flow hash picks one (ECMP).
#pragma once

#include <vector>

#include "models/params.hpp"
#include "models/topology_spec.hpp"
#include "topologies/build.hpp"
#include "topologies/spec.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

// DragonflyParams is in models/topology_spec.hpp.

/// Reads the section's keys (unknown ones rejected), then checks the size limits and that
/// every pair of groups gets the same number of global links.
DragonflyParams parse_dragonfly(const Params& section);

/// Checks `p` as parse_dragonfly does (messages name "DragonflyParams") and builds it.
Topology build_dragonfly(const DragonflyParams& p);
/// The graph build_dragonfly makes of `p`, counted after the same checks: the nodes, the
/// routers, and their NIC, local and global links.
TopologySize dragonfly_size(const DragonflyParams& p);
/// Every key with its value, in the order parse_dragonfly reads them.
std::vector<TopologySetting> dragonfly_settings(const DragonflyParams& p);

} // namespace trainsim::topo
