// The closed-form lower bound on the step time of one scenario, independent of SimGrid.
// It sums exactly the costs the simulator replays (models/workload.hpp) along the paths every
// schedule must take, so the simulated step time can never be below it. docs/closed-form.md
// derives each term; tests/models/closed_form_test.cpp checks small cases by hand.
#pragma once

#include <string>
#include <vector>

#include "models/scenario.hpp"

namespace trainsim {

/// What the bound needs to know about the fabric, filled by the caller from the topology
/// graph (models/ never includes topologies/). Latencies and bandwidths must themselves be
/// lower/upper bounds of what the simulator sees: a path latency is hops x per-hop latency,
/// so give the smallest hop count and per-hop latency between two such GPUs, and the largest
/// bandwidth a ring neighbour pair can get (its bottleneck link).
struct FabricSummary {
  int nvlink_domain = 8;                    ///< GPUs that share one NVLink/NVSwitch domain (a node)
  BytesPerSecond nvlink_bandwidth{450e9};   ///< per GPU per direction, GPU <-> NVSwitch
  Seconds nvlink_hop_latency{0.5e-6};       ///< per link inside the node
  int nvlink_hops = 2;                      ///< GPU -> NVSwitch -> GPU
  BytesPerSecond network_bandwidth{50e9};   ///< per GPU per direction: the NIC (or PCIe if slower)
  Seconds network_hop_latency{0.5e-6};      ///< per link on the inter-node path (PCIe, cable, switch)
  int network_hops = 4;                     ///< fewest links between GPUs in two nodes (GPU-NIC-leaf-NIC-GPU)
  /// What one GPU can send into the network at once over all its ports (a torus node has
  /// several): bounds an all-to-all, whose rounds go to different partners.
  BytesPerSecond network_injection_bandwidth{50e9};
  double oversubscription = 1.0;            ///< informational; a ring loads few uplinks, so the bound ignores it
  /// Set when the rank mapping guarantees that every ring of that group has at least one
  /// neighbour pair in different nodes (then the network tier bounds it); otherwise the bound
  /// assumes the cheaper tier whenever the group could fit in one node.
  bool tp_crosses_nodes = false;
  bool dp_crosses_nodes = false;
  bool pp_crosses_nodes = false;
  bool edp_crosses_nodes = false; ///< the ring over the GPUs holding the same experts
  /// Set when every pair of an EP group sits in different nodes (the all-to-all then pays
  /// the network in every round); otherwise the bound assumes the cheapest tier for it.
  bool ep_crosses_nodes = false;

  [[nodiscard]] Seconds nvlink_path_latency() const { return nvlink_hop_latency * nvlink_hops; }
  [[nodiscard]] Seconds network_path_latency() const { return network_hop_latency * network_hops; }
};

/// One additive part of the bound. The parts sum to BoundResult::step_time.
struct BoundTerm {
  std::string name;        ///< compute, hbm, latency, network, pipeline_bubble, dp_allreduce
  Seconds time;
  std::string explanation; ///< one line: what was counted and where it comes from
};

struct BoundResult {
  std::vector<BoundTerm> terms; ///< all terms, including zero ones, in a fixed order
  Seconds step_time;            ///< the lower bound: the sum of the terms
  std::string limiting;         ///< name of the largest term
  int critical_stage = 0;       ///< the pipeline stage whose chain gives the bound
  double microbatches = 0;
  Flop model_flop;              ///< model FLOP per step (for an MFU upper bound)
  double mfu_upper_bound = 0;   ///< model_flop / (gpus x peak x step_time)
};

/// Lower bound on one training step of `scenario` on a fabric summarised by `fabric`.
/// Valid when each GPU runs its operation list in order, one operation at a time (the
/// simulator's replay), a ring phase or pairwise all-to-all costs at least (p-1)(alpha +
/// n/(p B)), and the DP reduction starts after the stage's last backward (no dp_overlap).
/// Exact, up to rounding, when no two flows share a link.
BoundResult closed_form_bound(const Scenario& scenario, const FabricSummary& fabric);

/// A few lines for `trainsim bounds`: one row per term, the total and the limiting term.
std::string format_bound(const BoundResult& bound);

} // namespace trainsim
