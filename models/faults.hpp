// Degraded components in a step (a scenario's `faults:` section, docs/faults.md): GPUs that run
// their kernels slower than their preset, links at a fraction of their bandwidth, links and
// switches that have failed. The simulator applies all three; the closed form prices the
// fabric as the faults leave it (its tiers come from the routes) but not the slow GPUs, so it
// stays a lower bound.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/units.hpp"

namespace trainsim {

struct Scenario;

/// GPUs whose kernels run at `factor` of the preset's rate (a power cap, thermal throttling, a
/// bad HBM stack): one rank, every GPU of one node, or a fraction of all ranks placed by a
/// seed.
struct SlowGpus {
  enum class Which : std::uint8_t { rank, node, fraction };
  Which which = Which::rank;
  int index = 0;        ///< the rank or node (Which::rank, Which::node)
  double fraction = 0;  ///< of all ranks, at least one (Which::fraction)
  int seed = 0;         ///< which ranks a fraction takes
  double factor = 1;    ///< of the kernel rate, in (0, 1]
};

/// Network links at a fraction of their bandwidth or with extra latency (a cable renegotiated
/// to a lower rate, another tenant's traffic): the link from one rank's NIC to its switch,
/// one link named by its ends, or every link of a tier.
struct DegradedLinks {
  enum class Which : std::uint8_t { nic, link, tier };
  Which which = Which::nic;
  int rank = 0;            ///< Which::nic: the rank whose NIC link
  std::string link;        ///< Which::link: its ends' names, "leaf0-spine1" (either order)
  std::string tier;        ///< Which::tier: "leaf", "spine", ... (topologies/topology.hpp)
  double factor = 1;       ///< of its bandwidth, in (0, 1]
  Seconds extra_latency{}; ///< added to its latency
};

/// A link or a switch that has failed (a dead optic, a switch that rebooted): removed from
/// the fabric, the routes that crossed it recomputed over what is left.
struct FailedPart {
  enum class Which : std::uint8_t { link, network_switch };
  Which which = Which::link;
  std::string name; ///< "leaf0-spine1" (a link's ends, either order) or "spine3"
};

struct FaultSpec {
  std::vector<SlowGpus> slow_gpus;
  std::vector<DegradedLinks> degraded_links;
  std::vector<FailedPart> failed;
  [[nodiscard]] bool any() const { return !slow_gpus.empty() || links(); }
  /// Whether any link is degraded or has failed: the fabric is then no longer symmetric, so
  /// replica bundling does not apply, and rail bundling only to the rails a degraded link
  /// leaves alike (sim/rail_bundle.hpp).
  [[nodiscard]] bool links() const { return !degraded_links.empty() || !failed.empty(); }
};

/// What one entry names, as a scenario file writes it ("rank 12", "node 3", "1% of ranks,
/// seed 0") with its factor: for reports and provenance.
std::string describe(const SlowGpus& slow);
std::string describe(const DegradedLinks& links);
std::string describe(const FailedPart& part);

/// By rank, how much longer its kernels take because of the faults (1 / factor, the product
/// where several entries name it); empty without faults.
std::vector<double> fault_slowdowns(const Scenario& s);

/// Throws InputError naming the entry, key and value for the first fault the scenario's
/// execution and fabric cannot have.
void check_faults(const Scenario& s);

} // namespace trainsim
