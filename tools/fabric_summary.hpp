// The closed form's view of a fabric (models/closed_form.hpp), read off the topology graph:
// the glue that lets models/ stay independent of topologies/.
#pragma once

#include "models/closed_form.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

/// Per-tier bandwidth and latency between GPU pairs, and which parallel groups must cross
/// nodes under the simulator's rank layout (TP innermost, then DP, then PP). Each figure is
/// the most favourable one the graph offers, so the bound stays a lower bound.
FabricSummary fabric_summary(const topo::Topology& topology, const ExecutionSpec& execution);

} // namespace trainsim
