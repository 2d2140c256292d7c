#include "sim/rail_bundle.hpp"

#include <algorithm>
#include <limits>
#include <optional>
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
  // Folded experts' all-to-alls cross the rails of a node (their EP groups take in TP ranks).
  if (e.experts_fold()) return 1;
  bool ring_tp = make_collective(e.tp_collective)->runs_alone_in_node();
  bool node_is_block = e.tp_ranks() == g;
  bool node_is_second_axis = e.tp_2d == g;
  return rail_symmetric && (node_is_block || node_is_second_axis) && g > 1 && ring_tp &&
                 e.gpus() % g == 0
             ? g
             : 1;
}

// The rails with a degraded or failed link: a link that failed, or is slower or later than the
// best of its orbit (faults only take bandwidth away and add latency). None where such a link
// is one the rails share (a spine-core link: a failure there detours every rail's flows) or a
// GPU's NVLink, which every TP collective of its node crosses.
std::optional<std::vector<int>> faulty_rails(const topo::Topology& t) {
  const topo::Router& router = t.router();
  OrbitBest best = orbit_best(t);
  std::vector<int> rails;
  for (int id = 0; id < t.link_count(); ++id) {
    auto rep = static_cast<size_t>(router.rail_link(id));
    const topo::LinkProps& l = t.link(id);
    if (!t.link_failed(id) && l.bandwidth.value() == best.bandwidth[rep] &&
        l.latency.value() == best.latency[rep])
      continue;
    int rail = router.rail_of_link(id);
    if (rail < 0 || l.tier == topo::Tier::nvlink) return std::nullopt;
    if (std::find(rails.begin(), rails.end(), rail) == rails.end()) rails.push_back(rail);
  }
  std::sort(rails.begin(), rails.end());
  return rails;
}

} // namespace

OrbitBest orbit_best(const topo::Topology& t) {
  auto n = static_cast<size_t>(t.link_count());
  OrbitBest best{std::vector<double>(n, 0.0),
                 std::vector<double>(n, std::numeric_limits<double>::infinity())};
  for (int id = 0; id < t.link_count(); ++id) {
    auto rep = static_cast<size_t>(t.router().rail_link(id));
    best.bandwidth[rep] = std::max(best.bandwidth[rep], t.link(id).bandwidth.value());
    best.latency[rep] = std::min(best.latency[rep], t.link(id).latency.value());
  }
  return best;
}

bool RailBundle::runs_own(int rank) const {
  return rails > 1 && std::binary_search(own.begin(), own.end(), rail(rank));
}

// The one decision, from the scenario: the memory guard and validate ask it before the graph
// exists, the simulator after, and the router it builds must agree. Faults do not change it:
// the built fabric says which rails a degraded or failed link makes run on their own, or that
// none can stay bundled (rail_bundle_of).
int rail_bundle(const Scenario& s) {
  const auto* clos = std::get_if<topo::FatTreeParams>(&s.system.topology.params);
  if (clos == nullptr) return 1;
  return bundle_of(s.execution, clos->gpus_per_node, topo::fat_tree_rail_symmetric(*clos));
}

int rail_bundle(const Scenario& s, const topo::Topology& topology, const SimOptions& options) {
  return rail_bundle_of(s, topology, options).rails;
}

int own_rails(const Scenario& s, const topo::Topology& topology, const SimOptions& options) {
  return static_cast<int>(rail_bundle_of(s, topology, options).own.size());
}

RailBundle rail_bundle_of(const Scenario& s, const topo::Topology& topology,
                          const SimOptions& options) {
  RailBundle bundle;
  if (!options.bundle_rails || options.fidelity != Fidelity::fast) return bundle;
  bundle.rails = rail_bundle(s);
  TRAINSIM_CHECK(bundle.rails == 1 || (topology.router().rail_symmetric() &&
                                       topology.gpus_per_node() == bundle.rails),
                 "the scenario bundles rails its built fabric does not turn onto each other");
  if (bundle.rails == 1 || !s.faults.links()) return bundle;
  std::optional<std::vector<int>> own = faulty_rails(topology);
  if (!own || static_cast<int>(own->size()) == bundle.rails) return RailBundle{};
  bundle.own = std::move(*own);
  while (std::binary_search(bundle.own.begin(), bundle.own.end(), bundle.leader))
    bundle.leader += 1;
  return bundle;
}

std::vector<bool> traced_leaders(const RailBundle& bundle, const std::vector<bool>& traced) {
  std::vector<bool> leaders(traced.size(), false);
  for (size_t r = 0; r < traced.size(); ++r) {
    if (!traced[r]) continue;
    int rank = static_cast<int>(r);
    leaders[static_cast<size_t>(bundle.runs_own(rank) ? rank : bundle.leader_of(rank))] = true;
  }
  return leaders;
}

void mirror_rails(const RailBundle& bundle, const std::vector<bool>& traced, SimResult& result) {
  auto stands_for = [&](int rank) { return !bundle.runs_own(rank); };
  for (size_t r = 0; r < result.ranks.size(); ++r) {
    int rank = static_cast<int>(r);
    if (stands_for(rank) && !bundle.leads(rank))
      result.ranks[r] = result.ranks[static_cast<size_t>(bundle.leader_of(rank))];
  }
  std::vector<TraceEvent> events;
  for (const TraceEvent& e : result.trace) {
    if (bundle.runs_own(e.rank)) {
      if (traced[static_cast<size_t>(e.rank)]) events.push_back(e);
      continue;
    }
    int first = e.rank - bundle.rail(e.rank);
    for (int k = 0; k < bundle.rails && static_cast<size_t>(first + k) < traced.size(); ++k) {
      if (!traced[static_cast<size_t>(first + k)] || !stands_for(first + k)) continue;
      TraceEvent turned = e;
      turned.rank = static_cast<std::int32_t>(first + k);
      events.push_back(turned);
    }
  }
  result.trace = std::move(events);
}

} // namespace trainsim::sim
