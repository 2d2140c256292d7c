#include "sim/rail_bundle.hpp"

#include <algorithm>

#include "sim/simulation.hpp"

namespace trainsim::sim {

int rail_bundle(const Scenario& s, const topo::Topology& topology, const SimOptions& options) {
  const ExecutionSpec& e = s.execution;
  int g = topology.gpus_per_node();
  // The TP collective is waited out at its time alone on the node's NVLink (ring_alone):
  // the algorithms whose time that is inside one node.
  bool ring_tp = e.tp_collective == "ring" || e.tp_collective == "hierarchical";
  bool symmetric =
      topology.router().rail_symmetric() && e.tp == g && g > 1 && ring_tp && e.gpus() % g == 0;
  return options.bundle_rails && options.fidelity == Fidelity::fast && symmetric ? g : 1;
}

std::vector<bool> traced_leaders(int rails, const std::vector<bool>& traced) {
  std::vector<bool> leaders(traced.size(), false);
  for (size_t r = 0; r < traced.size(); ++r)
    if (traced[r]) leaders[r - r % static_cast<size_t>(rails)] = true;
  return leaders;
}

void mirror_rails(int rails, const std::vector<bool>& traced, SimResult& result) {
  auto step = static_cast<size_t>(rails);
  for (size_t r = 0; r < result.ranks.size(); ++r)
    if (r % step != 0) result.ranks[r] = result.ranks[r - r % step];
  std::vector<TraceEvent> events;
  for (const TraceEvent& e : result.trace) {
    auto leader = static_cast<size_t>(e.rank);
    for (size_t k = 0; k < step && leader + k < traced.size(); ++k) {
      if (!traced[leader + k]) continue;
      TraceEvent turned = e;
      turned.rank = static_cast<std::int32_t>(leader + k);
      events.push_back(turned);
    }
  }
  result.trace = std::move(events);
}

} // namespace trainsim::sim
