// The fabric a scenario runs on, as typed values: one parameter struct per topology generator,
// and the TopologySpec that names the generator and holds its struct. They are plain values
// with units and documented defaults, like the rest of the scenario, so SystemSpec can hold
// the spec itself; topologies/spec.hpp reads one from a scenario's `system.topology` section
// (once), counts what it describes and builds it. They keep the topologies' namespace, topo.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "models/units.hpp"

namespace trainsim::topo {

/// One GPU node: `gpus_per_node` GPUs on one NVSwitch (the NVLink domain), each GPU with
/// its own NIC over PCIe. The defaults are a DGX H100.
struct NodeParams {
  int gpus_per_node = 8;
  BytesPerSecond nvlink_bandwidth{450e9}; ///< per GPU per direction (NVLink 4: 18 links x 25 GB/s)
  Seconds nvlink_latency{0.5e-6};         ///< per hop
  BytesPerSecond pcie_bandwidth{64e9};    ///< GPU <-> NIC (PCIe 5 x16)
  Seconds pcie_latency{0.5e-6};
  BytesPerSecond nic_bandwidth{
      50e9};                       ///< 400 Gb/s NDR per GPU; also used for switch-to-switch links
  Seconds network_latency{0.5e-6}; ///< per network hop (cable + switch)

  friend bool operator==(const NodeParams&, const NodeParams&) = default;
};

/// GPU nodes on a folded Clos: the `fat-tree`, `rail-optimized`, `dgx-h100` and `nvl72`
/// generators (topologies/fat_tree.hpp describes the layout). The node members are flat, not
/// a NodeParams, so that code sets them as `p.gpus_per_node`.
struct FatTreeParams {
  int nodes = 1;
  int gpus_per_node = 8;
  BytesPerSecond nvlink_bandwidth{450e9}; ///< per GPU per direction (NVLink 4)
  Seconds nvlink_latency{0.5e-6};         ///< per hop
  BytesPerSecond pcie_bandwidth{64e9};    ///< GPU <-> NIC (PCIe 5 x16)
  Seconds pcie_latency{0.5e-6};
  BytesPerSecond nic_bandwidth{50e9}; ///< 400 Gb/s NDR per GPU; switch-to-switch links too
  Seconds network_latency{0.5e-6};    ///< per InfiniBand hop (cable + switch)
  int leaf_down_ports = 32;
  double oversubscription = 1.0; ///< down ports / up ports per leaf
  int tiers = 2;                 ///< 2 (leaf/spine) or 3 (leaf/spine/core)
  int radix = 0;                 ///< switch ports; 0 = unchecked (2 tiers only)
  bool rail_optimized =
      false; ///< NIC k of every node on rail leaf k (not a key: the generator says it)
  /// How a flow picks its spine plane (and core): "spray" (the default), adaptive routing's
  /// fluid limit, as InfiniBand switches route with adaptive routing on (docs/topologies.md):
  /// a leaf's uplinks (and a pod's core links) built as one link of their summed bandwidth;
  /// "pair", static ECMP, a hash of the two GPUs (RoCE's per-flow hashing); "rail", a hash of
  /// the two nodes (and the rails' offset) turned by up / gpus_per_node planes per rail, so
  /// that turning every node's GPUs one place turns the routes too (rail symmetry:
  /// docs/topologies.md; the simulator then runs one rail for all, docs/fast-mode.md);
  /// "destination", no hash: InfiniBand's static destination routing as OpenSM's fat-tree
  /// engine lays it out, rail-symmetric as well.
  std::string ecmp = "spray";

  [[nodiscard]] NodeParams node() const {
    return NodeParams{gpus_per_node, nvlink_bandwidth, nvlink_latency, pcie_bandwidth,
                      pcie_latency,  nic_bandwidth,    network_latency};
  }
  friend bool operator==(const FatTreeParams&, const FatTreeParams&) = default;
};

/// GPU nodes on dragonfly routers (topologies/dragonfly.hpp).
struct DragonflyParams {
  NodeParams node{};         ///< the node (defaults: DGX H100)
  int groups = 9;            ///< g; the balanced maximum is routers_per_group * global_links + 1
  int routers_per_group = 4; ///< a
  int global_links = 2;      ///< h per router; (groups - 1) must divide a * h
  int nodes_per_router = 1;  ///< p; a router has p * gpus_per_node NIC ports
  BytesPerSecond global_bandwidth{50e9}; ///< per direction per global link
  Seconds global_latency{1e-6};          ///< per global hop (long optical cables)

  friend bool operator==(const DragonflyParams&, const DragonflyParams&) = default;
};

/// A 2-D or 3-D torus of GPUs with direct links (topologies/torus.hpp).
struct TorusParams {
  std::vector<int> dims{4, 4};         ///< ring sizes, 2 or 3 of them ("4x4x4" in a scenario)
  BytesPerSecond link_bandwidth{50e9}; ///< per direction per link (TPU v4 ICI class)
  Seconds link_latency{1e-6};          ///< per hop, including the chip's router

  friend bool operator==(const TorusParams&, const TorusParams&) = default;
};

/// A graph read from a file (topologies/import.hpp).
struct ImportParams {
  std::string path; ///< a scenario's relative path is resolved against its folder when parsed
  std::string format = "auto"; ///< graphml, json, csv, or auto (from the extension)
  int gpus_per_node = 0;       ///< NVLink domain size; 0 = inferred (GPUs per NVSwitch, else 1)
  int route_cache_mib = 256;   ///< memory for cached BFS trees (4 bytes per vertex per source)
  /// NVSwitches each GPU that has one is wired to: 1, or the planes of a multi-chip NVLink
  /// domain (a DGX H100's GPUs each reach four NVSwitch chips). Anything else is refused, as a
  /// GPU on two switches is far more often a wiring typo than a design.
  int nvswitch_planes = 1;

  friend bool operator==(const ImportParams&, const ImportParams&) = default;
};

/// A scenario's `system.topology`: the registered generator and its parameters, read once
/// from the section (topologies/spec.hpp: parse_topology) or made in code from a struct.
/// Counting and building read the typed values only; the section's text survives in `given`
/// for reports alone, so that they show what the user wrote ("400Gbps", not "5e+10Bps").
struct TopologySpec {
  using Parameters = std::variant<FatTreeParams, DragonflyParams, TorusParams, ImportParams>;

  std::string generator = "fat-tree"; ///< the registered name (topologies/registry.hpp)
  Parameters params;                  ///< the struct of that generator
  /// The keys the section set, "generator" among them, each with its text as written: what
  /// reports list as given, apart from what was left at its default. Nothing parses it
  /// again. Empty for a spec made in code.
  std::map<std::string, std::string> given;

  TopologySpec() = default;
  // Implicit on purpose: code that builds a fabric passes the struct where a spec is expected.
  TopologySpec(FatTreeParams p)
      : generator(p.rail_optimized ? "rail-optimized" : "fat-tree"), params(p) {}
  TopologySpec(DragonflyParams p) : generator("dragonfly"), params(std::move(p)) {}
  TopologySpec(TorusParams p) : generator("torus"), params(std::move(p)) {}
  TopologySpec(ImportParams p) : generator("file"), params(std::move(p)) {}

  /// GPUs per node (NVLink domain) as the generator builds them: a torus has one; 0 where
  /// only the built graph knows (an imported file that does not say).
  [[nodiscard]] int gpus_per_node() const {
    if (const auto* p = std::get_if<FatTreeParams>(&params)) return p->gpus_per_node;
    if (const auto* p = std::get_if<DragonflyParams>(&params)) return p->node.gpus_per_node;
    if (const auto* p = std::get_if<ImportParams>(&params)) return p->gpus_per_node;
    return 1;
  }

  /// The same fabric: how its values were written (`given`) does not count, so a spec made
  /// in code equals the one parsed from the equivalent section.
  friend bool operator==(const TopologySpec& a, const TopologySpec& b) {
    return a.generator == b.generator && a.params == b.params;
  }
};

} // namespace trainsim::topo
