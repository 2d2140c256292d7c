// The topology graph as the route costs between ranks that models/fabric.hpp prices groups
// by: the simulator paces its merged ring flows with them and the closed-form bound prices
// each group's traffic with them (tools/fabric_summary), so both see the same tier: the
// slowest one the group's members actually cross.
#pragma once

#include "models/fabric.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

/// The route from GPU `src` to GPU `dst`: its latency, its slowest link's bandwidth and tier.
PairCost path_cost(const Topology& topology, int src, int dst);

/// path_cost() as a function of the two ranks; `topology` must outlive it.
PairCosts pair_costs(const Topology& topology);

/// Whether every route between two members of `group` runs up the sender's own path to one
/// switch and down the receiver's own path from it, no link direction on two members' paths,
/// every pair of one latency and bandwidth: an exchange among them then shares no link but
/// the members' own (one node's NVLink; GPU k of nodes under one rail leaf, each on its own
/// NIC). O(p^2) routes.
bool behind_one_switch(const GroupSpan& group, const Topology& topology);

} // namespace trainsim::topo
