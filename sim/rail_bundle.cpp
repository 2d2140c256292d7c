#include "sim/rail_bundle.hpp"

#include <algorithm>
#include <variant>

#include "models/check.hpp"
#include "sim/collectives.hpp"
#include "sim/simulation.hpp"
#include "topologies/fat_tree.hpp"

namespace trainsim::sim {

namespace {

// Turning every node's GPUs maps the step onto itself when the node is one TP block, or under
// 2-D TP one group of the second axis whose first axis then has one member per node (every
// other group keeps its index in the node, its rail), on a fabric that turns with it. The
// node's collectives are waited out at their time alone on its NVLink, where the TP
// algorithm's implementation says that is its time (CollectiveAlgorithm::runs_alone_in_node).
// A first axis across nodes runs as flows, as DP does, on a stream of its own.
int bundle_of(const ExecutionSpec& e, int g, bool rail_symmetric) {
  bool ring_tp = make_collective(e.tp_collective)->runs_alone_in_node();
  bool node_is_block = e.tp_ranks() == g;
  bool node_is_second_axis = e.tp_2d == g;
  return rail_symmetric && (node_is_block || node_is_second_axis) && g > 1 && ring_tp &&
                 e.gpus() % g == 0
             ? g
             : 1;
}

} // namespace

// The one decision, from the scenario: the memory guard and validate ask it before the graph
// exists, the simulator after, and the router it builds must agree.
int rail_bundle(const Scenario& s) {
  const auto* clos = std::get_if<topo::FatTreeParams>(&s.system.topology.params);
  if (clos == nullptr || s.faults.links()) return 1; // a degraded link breaks the turn
  return bundle_of(s.execution, clos->gpus_per_node, topo::fat_tree_rail_symmetric(*clos));
}

int rail_bundle(const Scenario& s, const topo::Topology& topology, const SimOptions& options) {
  if (!options.bundle_rails || options.fidelity != Fidelity::fast) return 1;
  int rails = rail_bundle(s);
  TRAINSIM_CHECK(rails == 1 ||
                     (topology.router().rail_symmetric() && topology.gpus_per_node() == rails),
                 "the scenario bundles rails its built fabric does not turn onto each other");
  return rails;
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
