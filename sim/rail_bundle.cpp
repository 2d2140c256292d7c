#include "sim/rail_bundle.hpp"

#include <algorithm>
#include <variant>

#include "sim/simulation.hpp"

namespace trainsim::sim {

namespace {

// Turning every node's GPUs maps the step onto itself: one TP block per node (every other
// group then keeps its TP index, its rail), on a fabric that turns with it. The TP collective
// is waited out at its time alone on the node's NVLink (ring_alone): the algorithms whose time
// that is inside one node.
int bundle_of(const ExecutionSpec& e, int g, bool rail_symmetric) {
  bool ring_tp = e.tp_collective == "ring" || e.tp_collective == "hierarchical";
  return rail_symmetric && e.tp_ranks() == g && g > 1 && ring_tp && e.gpus() % g == 0 ? g : 1;
}

} // namespace

int rail_bundle(const Scenario& s, const topo::Topology& topology, const SimOptions& options) {
  if (!options.bundle_rails || options.fidelity != Fidelity::fast) return 1;
  return bundle_of(s.execution, topology.gpus_per_node(), topology.router().rail_symmetric());
}

int rail_bundle(const Scenario& s) {
  const auto* clos = std::get_if<topo::FatTreeParams>(&s.system.topology.params);
  if (clos == nullptr) return 1;
  return bundle_of(s.execution, clos->gpus_per_node, clos->rail_optimized && clos->ecmp == "rail");
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
