// Turns a topology graph into a SimGrid platform: one flat routing zone whose routes come
// from the topology's own router (SimGrid 3.32's nested zones and built-in fat-tree do not
// scale; see docs/architecture.md), one host per GPU and one SimGrid link per direction of
// every graph link.
#pragma once

#include <vector>

#include "models/scenario.hpp"
#include "topologies/topology.hpp"

namespace simgrid::s4u {
class Host;
class Link;
} // namespace simgrid::s4u

namespace trainsim::sim {

struct RailBundle;

/// Must run once per process, before the platform exists: settings that make SimGrid a
/// correct and scalable model of a GPU fabric (docs/architecture.md explains each).
void configure_engine();

class Platform {
public:
  /// With a `bundle` of rails (sim/rail_bundle.hpp; the topology must be rail-symmetric),
  /// every route of a GPU the leader stands for goes over the links that stand for its links'
  /// orbits (Router::rail_link), at the bandwidth of the orbit's healthy links: the platform
  /// of rail bundling, where the leader's flows alone stand for every healthy rail's
  /// (docs/fast-mode.md). An own rail's routes go over its own links.
  /// With `shared_links` false every link is a fat pipe: each flow gets the link's whole
  /// bandwidth however many cross it (validate's fast-vs-fine check without contention).
  Platform(const topo::Topology& topology, const GpuSpec& gpu,
           const RailBundle* bundle = nullptr, bool shared_links = true);

  [[nodiscard]] simgrid::s4u::Host* host(int rank) const {
    return hosts_[static_cast<size_t>(rank)];
  }
  [[nodiscard]] const topo::Topology& topology() const { return topology_; }
  /// The SimGrid link of each direction of each graph link, by Hop::channel(); null, in a
  /// rail quotient, for the links that others stand for (an own rail's are not listed).
  [[nodiscard]] const std::vector<simgrid::s4u::Link*>& channels() const { return channels_; }
  /// What `bytes` from `from` to `to` take with no other flow on the route's links: its
  /// latency plus the bytes at its narrowest link, or at `rate` (a flow's cap; 0: none) if
  /// lower, as the network model configured here prices a lone flow.
  [[nodiscard]] Seconds idle_time(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                                  double bytes, double rate) const;

private:
  const topo::Topology& topology_;
  double speed_; ///< the hosts' nominal speed (kernels are sleeps: sim/gpu_actor.cpp)
  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<simgrid::s4u::Link*> channels_;
};

} // namespace trainsim::sim
