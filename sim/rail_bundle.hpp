// Rail bundling, the simulator's side (docs/fast-mode.md, "Rail bundling"): on a fabric
// whose rails are images of one another (topologies/topology.hpp: Router::rail_symmetric),
// with one TP group per node, turning every node's GPUs one place maps the whole step onto
// itself. Fast mode then runs each node's rail-0 GPU alone over the rail quotient of the
// platform, and the node's other GPUs take its timeline, turned. Internal to sim/.
#pragma once

#include <vector>

#include "sim/stats.hpp"

namespace trainsim::sim {

/// After the run: each GPU k > 0 of a node takes its rail-0 GPU's statistics, and its trace
/// events when `traced[k]` (the rail-0 GPU was traced on its behalf; its own events are kept
/// only when `traced` asks for them).
void mirror_rails(int rails, const std::vector<bool>& traced, SimResult& result);

/// The ranks to trace when bundling: the rail-0 GPU of every node with a traced GPU.
std::vector<bool> traced_leaders(int rails, const std::vector<bool>& traced);

} // namespace trainsim::sim
