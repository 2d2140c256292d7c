// Routing around failed links. A switch whose next hop drops out rehashes the flows that used
// it over the equal-cost next hops left; flows that never touched the failure keep their path.
// DetourRouter does the same at the level of whole routes: it asks the fabric's own router
// first and, only where that route crosses a failed link, takes a shortest path over the
// working links, the flow hash choosing among equal ones (ShortestPathRouter).
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "topologies/shortest_path.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

class DetourRouter final : public Router {
public:
  /// `gpus_forward` as for ShortestPathRouter: false on switched fabrics, where a detour
  /// stays in the network rather than relaying through another GPU.
  DetourRouter(std::unique_ptr<Router> healthy, size_t cache_bytes, bool gpus_forward)
      : healthy_(std::move(healthy)), detour_(cache_bytes, gpus_forward) {}

  void route(const Topology& topology, int src, int dst, std::vector<Hop>& out) const override;
  // The healthy fabric's symmetry: a failed link of one rail detours that rail's routes alone,
  // over its own links, and the other rails' routes stay images of one another. Which rails
  // that breaks is the simulator's to read off the failed links (sim/rail_bundle.hpp).
  [[nodiscard]] bool rail_symmetric() const override { return healthy_->rail_symmetric(); }
  [[nodiscard]] int rail_link(int link) const override { return healthy_->rail_link(link); }
  [[nodiscard]] int rail_of_link(int link) const override { return healthy_->rail_of_link(link); }

private:
  std::unique_ptr<Router> healthy_;
  ShortestPathRouter detour_;
};

/// Where GPUs relay: a GPU that GPU 0 cannot reach over working links, with GPU 0.
std::optional<std::pair<int, int>> unreachable_from_first(const Topology& topology);
/// Where only the network forwards: two GPUs that share no connected piece of it (of the
/// fabric without its GPUs, over working links), the first such pair found.
std::optional<std::pair<int, int>> unjoined_pair(const Topology& topology);

} // namespace trainsim::topo
