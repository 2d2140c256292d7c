#include "tools/study/fabric_summary.hpp"

#include "topologies/group_paths.hpp"

namespace trainsim {

FabricSummary fabric_summary(const topo::Topology& t, const ExecutionSpec& e) {
  return summarize_fabric(e, topo::pair_costs(t), t.gpus_per_node());
}

} // namespace trainsim
