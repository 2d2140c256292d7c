// The closed form's view of a fabric (models/fabric.hpp), read off the topology graph: the
// glue that lets models/ stay independent of topologies/.
#pragma once

#include "models/fabric.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

/// Per pipeline stage, the tier each parallel group's traffic crosses under the rank layout
/// (models/layout.hpp), from the routes of the topology graph (topologies/group_paths.hpp).
FabricSummary fabric_summary(const topo::Topology& topology, const ExecutionSpec& execution);

} // namespace trainsim
