// GPU nodes on a folded-Clos InfiniBand fabric. Each node: `gpus_per_node` GPUs on one
// NVSwitch, one NIC per GPU. NICs attach to leaf switches in node order; each leaf has
// `leaf_down_ports` NIC ports and leaf_down_ports / oversubscription uplinks, one per spine.
#pragma once

#include "models/params.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

struct FatTreeParams {
  int nodes = 1;
  int gpus_per_node = 8;
  BytesPerSecond nvlink_bandwidth{450e9}; ///< per GPU per direction (NVLink 4)
  Seconds nvlink_latency{0.5e-6};         ///< per hop
  BytesPerSecond pcie_bandwidth{64e9};    ///< GPU <-> NIC (PCIe 5 x16)
  Seconds pcie_latency{0.5e-6};
  BytesPerSecond nic_bandwidth{50e9};     ///< 400 Gb/s NDR per GPU
  Seconds network_latency{0.5e-6};        ///< per InfiniBand hop (cable + switch)
  int leaf_down_ports = 32;
  double oversubscription = 1.0;          ///< down ports / up ports per leaf

  static FatTreeParams from(const Params& params);
};

Topology build_fat_tree(const FatTreeParams& p);
Topology build_fat_tree(const Params& params);

} // namespace trainsim::topo
