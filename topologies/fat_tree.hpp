// GPU nodes on a folded Clos (fat-tree), the one Clos builder behind the `fat-tree`,
// `rail-optimized`, `dgx-h100` and `nvl72` generators.
//
// Each node: `gpus_per_node` GPUs on one NVSwitch, one NIC per GPU (topologies/build.hpp).
// Leaves have `leaf_down_ports` NIC ports and floor(leaf_down_ports / oversubscription)
// uplinks, one to each spine of their pod.
//   - contiguous mapping (fat-tree): NIC r is on leaf r / leaf_down_ports;
//   - rail mapping (rail-optimized): NIC k of node n is on leaf (n / leaf_down_ports) *
//     gpus_per_node + k, so each leaf serves one rail of a group of leaf_down_ports nodes.
// 2 tiers: every leaf reaches every spine. 3 tiers: pods of radix/2 leaves and their
// spines; spine j of every pod (plane j) reaches the radix/2 cores of plane j.
// A single leaf has no spines; a single pod has no cores.
#pragma once

#include "models/params.hpp"
#include "topologies/build.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

struct FatTreeParams {
  int nodes = 1;
  int gpus_per_node = 8;
  BytesPerSecond nvlink_bandwidth{450e9}; ///< per GPU per direction (NVLink 4)
  Seconds nvlink_latency{0.5e-6};         ///< per hop
  BytesPerSecond pcie_bandwidth{64e9};    ///< GPU <-> NIC (PCIe 5 x16)
  Seconds pcie_latency{0.5e-6};
  BytesPerSecond nic_bandwidth{50e9};     ///< 400 Gb/s NDR per GPU; switch-to-switch links too
  Seconds network_latency{0.5e-6};        ///< per InfiniBand hop (cable + switch)
  int leaf_down_ports = 32;
  double oversubscription = 1.0;          ///< down ports / up ports per leaf
  int tiers = 2;                          ///< 2 (leaf/spine) or 3 (leaf/spine/core)
  int radix = 0;                          ///< switch ports; 0 = unchecked (2 tiers only)
  bool rail_optimized = false;            ///< rail mapping of NICs to leaves (see above)

  /// Reads the keys, with `defaults` for absent ones; `nodes` is required unless
  /// `nodes_required` is false.
  static FatTreeParams from(const Params& params, FatTreeParams defaults, bool nodes_required = true);
  static FatTreeParams from(const Params& params) { return from(params, FatTreeParams{}); }
  [[nodiscard]] NodeParams node() const;
};

Topology build_fat_tree(const FatTreeParams& p);
/// The graph build_fat_tree makes of `p`, counted after the same checks (errors name `params`'s keys).
TopologySize fat_tree_size(const FatTreeParams& p, const Params& params);
Topology build_fat_tree(const Params& params);
Topology build_rail_optimized(const Params& params);
/// DGX H100 nodes (8 GPUs, 450 GB/s NVLink, 8 x 400 Gb/s NICs), rail-optimized on radix-64
/// switches; nodes defaults to 32, one DGX SuperPOD scalable unit.
Topology build_dgx_h100(const Params& params);
/// GB200 NVL72 racks: 72-GPU NVLink domains at 900 GB/s, one 400 Gb/s NIC per GPU; nodes defaults to 1.
Topology build_nvl72(const Params& params);

FatTreeParams dgx_h100_defaults();
FatTreeParams nvl72_defaults();

} // namespace trainsim::topo
