// Shared construction pieces for generators: adding typed vertices and links with dense ids,
// and the GPU node (GPUs on one NVSwitch, one NIC per GPU) that every node-based fabric reuses.
#pragma once

#include "models/params.hpp"
#include "models/scenario_rules.hpp"
#include "models/topology_spec.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

/// Adds `count` vertices of one kind; their `index` runs 0..count-1. Returns the first vertex.
Vertex add_vertices(Graph& g, VertexKind kind, int level, int count);

/// Adds a full-duplex link whose id is the current link count, so ids are dense and follow
/// the order of construction (routers rely on that order to compute link ids arithmetically).
int add_link(Graph& g, Vertex a, Vertex b, BytesPerSecond bandwidth, Seconds latency, Tier tier);

/// Where a node-based fabric's vertices start. GPU rank r is vertex r; node n's NVSwitch is
/// first_nvswitch + n; GPU r's NIC is first_nic + r.
struct NodeLayout {
  int gpus = 0;
  int nodes = 0;
  Vertex first_nvswitch = 0;
  Vertex first_nic = 0;
};

/// Adds `nodes` nodes to an empty graph: all GPUs first (so rank == vertex), then NVSwitches,
/// then NICs. Per GPU r it adds links 2r (nvlink) and 2r+1 (host), in that order.
NodeLayout add_nodes(Graph& g, const NodeParams& p, int nodes);

/// The hop over the link `id` from vertex `from` to vertex `to`.
inline Hop hop(int id, Vertex from, Vertex to) { return Hop{id, from < to}; }

/// GPU -> NVSwitch -> GPU inside one node.
inline void route_in_node(const NodeLayout& n, int gpus_per_node, int src, int dst,
                          std::vector<Hop>& out) {
  Vertex nvswitch = n.first_nvswitch + static_cast<Vertex>(src / gpus_per_node);
  out.push_back(hop(2 * src, static_cast<Vertex>(src), nvswitch));
  out.push_back(hop(2 * dst, nvswitch, static_cast<Vertex>(dst)));
}

/// GPU -> NIC -> first switch `sw`, over the NIC's uplink `nic_link`.
inline void route_up(const NodeLayout& n, int rank, int nic_link, Vertex sw,
                     std::vector<Hop>& out) {
  Vertex nic = n.first_nic + static_cast<Vertex>(rank);
  out.push_back(hop(2 * rank + 1, static_cast<Vertex>(rank), nic));
  out.push_back(hop(nic_link, nic, sw));
}

/// Switch `sw` -> NIC -> GPU: the mirror of route_up.
inline void route_down(const NodeLayout& n, int rank, int nic_link, Vertex sw,
                       std::vector<Hop>& out) {
  Vertex nic = n.first_nic + static_cast<Vertex>(rank);
  out.push_back(hop(nic_link, sw, nic));
  out.push_back(hop(2 * rank + 1, nic, static_cast<Vertex>(rank)));
}

/// What a generator's parameters describe, counted without building anything: the loader
/// refuses a fabric that does not match the execution or would not fit in memory before it
/// allocates (doubles: the products of user-given ints must not overflow before the caps).
struct TopologySize {
  double gpus = 0;
  double vertices = 0; ///< GPUs, NVSwitches, NICs and switches
  double links = 0;
};

/// The largest fabric a generator builds: ranks, vertex and link ids stay far from int limits.
inline constexpr long kMaxGpus = trainsim::kMaxGpus; // models/scenario_rules.hpp

/// The most links a generator builds (~10 GB of graph): beyond, ids overflow or memory runs out.
inline constexpr double kMaxLinks = 1e8;

/// Throws InputError about `key` when `links` exceeds kMaxLinks (a double, like check_gpu_count).
/// `context` names the section the key is in, or the struct made in code (fields.hpp).
void check_link_count(const Params& context, const char* key, double links);

/// Throws InputError about `key` when `gpus` exceeds kMaxGpus (a double: the product of
/// several user-given ints must not overflow before it is checked).
void check_gpu_count(const Params& context, const char* key, double gpus);

} // namespace trainsim::topo
