// Rail bundling, the simulator's side (docs/fast-mode.md, "Rail bundling"): on a fabric
// whose rails are images of one another (topologies/topology.hpp: Router::rail_symmetric),
// with one TP group per node, turning every node's GPUs one place maps the whole step onto
// itself. Fast mode then runs each node's leader GPU alone over the rail quotient of the
// platform, and the node's other GPUs take its timeline, turned. A degraded link of one rail
// (a NIC's cable, a rail leaf's uplink) breaks the turn for that rail alone: its GPUs run
// their own programs over their own links, meeting the leader at every TP collective, and
// the leader stands for the healthy rails. Internal to sim/.
#pragma once

#include <vector>

#include "models/scenario.hpp"
#include "sim/stats.hpp"
#include "topologies/topology.hpp"

namespace trainsim::sim {

struct SimOptions;

/// Which GPUs of a node run. rails 1: every GPU runs its own flows.
struct RailBundle {
  int rails = 1;        ///< GPUs per node that turn onto one another
  int leader = 0;       ///< the rail whose GPU runs for the healthy rails
  std::vector<int> own; ///< rails whose GPUs run on their own (a link of theirs is degraded)

  [[nodiscard]] int rail(int rank) const { return rank % rails; }
  [[nodiscard]] bool runs_own(int rank) const;
  [[nodiscard]] bool leads(int rank) const { return rails > 1 && rail(rank) == leader; }
  /// The leader of the rank's node.
  [[nodiscard]] int leader_of(int rank) const { return rank - rail(rank) + leader; }
  /// GPUs of a node that meet at its TP collectives: the leader and the own rails'.
  [[nodiscard]] int actors_per_node() const { return 1 + static_cast<int>(own.size()); }
};

/// Each orbit's best link (Router::rail_link), by the orbit's standing link: the highest
/// bandwidth and the lowest latency among its links. Faults only take bandwidth away and add
/// latency, so these are the healthy links' figures.
struct OrbitBest {
  std::vector<double> bandwidth, latency; ///< B/s and s, by link id; only standing links set
};
OrbitBest orbit_best(const topo::Topology& topology);

/// The bundle of a simulation: rail_bundle()'s rails, and on the built fabric the rails whose
/// links are degraded (their links differ from their images on other rails). A degraded link
/// that the rails share (a spine-core link) unbundles every rail.
RailBundle rail_bundle_of(const Scenario& s, const topo::Topology& topology,
                          const SimOptions& options);

/// After the run: each GPU the leader stood for takes its statistics, and its trace events
/// when `traced` asks (the leader was traced on its behalf; its own events are kept only when
/// `traced` asks for them). The own rails keep theirs.
void mirror_rails(const RailBundle& bundle, const std::vector<bool>& traced, SimResult& result);

/// The ranks to trace when bundling: the leader of every node with a traced GPU it stands
/// for, and the traced GPUs of the own rails.
std::vector<bool> traced_leaders(const RailBundle& bundle, const std::vector<bool>& traced);

} // namespace trainsim::sim
