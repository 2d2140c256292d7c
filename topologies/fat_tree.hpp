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

#include <string>
#include <vector>

#include "models/params.hpp"
#include "models/topology_spec.hpp"
#include "topologies/build.hpp"
#include "topologies/spec.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

// FatTreeParams is in models/topology_spec.hpp.

/// Reads the section's keys over `defaults` (`nodes` is required unless `nodes_required` is
/// false), rejects unknown ones and checks what the Clos needs (tiers, radix, ports, size).
FatTreeParams parse_fat_tree(const Params& section, FatTreeParams defaults, bool nodes_required);

/// The graph build_fat_tree makes of `p`, counted after the same checks.
TopologySize fat_tree_size(const FatTreeParams& p);
/// Checks `p` (messages name "FatTreeParams") and builds it.
Topology build_fat_tree(const FatTreeParams& p);
/// Whether build_fat_tree(p)'s router is rail-symmetric (Router::rail_symmetric), decided
/// without building it.
bool fat_tree_rail_symmetric(const FatTreeParams& p);
/// Whether p's switches spread each flow over every uplink (ecmp: spray).
bool fat_tree_sprays(const FatTreeParams& p);
/// Whether a failed part called `name` (a switch, or a link by its ends "a-b") is one that
/// p's sprayed fabric builds inside a merged switch or link: a spine or core switch, or a
/// link with a spine or core end. Its failure then takes capacity away from the merged
/// element rather than a route (tools/study/sprayed_failures.hpp).
bool fat_tree_merged_part(const FatTreeParams& p, const std::string& name);
/// Every key with its value, in the order parse_fat_tree reads them.
std::vector<TopologySetting> fat_tree_settings(const FatTreeParams& p);

/// One DGX SuperPOD scalable unit: DGX H100 nodes (8 GPUs, 450 GB/s NVLink, 8 x 400 Gb/s
/// NICs), rail-optimized on radix-64 switches; nodes defaults to 32.
FatTreeParams dgx_h100_defaults();
/// GB200 NVL72 racks: 72-GPU NVLink domains at 900 GB/s, one 400 Gb/s NIC per GPU; nodes defaults
/// to 1.
FatTreeParams nvl72_defaults();

} // namespace trainsim::topo
