#include "topologies/registry.hpp"

#include "topologies/dragonfly.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/import.hpp"
#include "topologies/torus.hpp"

namespace trainsim::topo {

namespace {

// Each reads its parameters as its build would (same defaults, same errors) and stops there.
std::optional<TopologySize> size_fat_tree(const Params& params) {
  return fat_tree_size(FatTreeParams::from(params), params);
}
std::optional<TopologySize> size_rail_optimized(const Params& params) {
  FatTreeParams defaults;
  defaults.rail_optimized = true; // rails change the leaf count: one leaf per rail per group of nodes
  return fat_tree_size(FatTreeParams::from(params, defaults), params);
}
std::optional<TopologySize> size_dgx_h100(const Params& params) {
  return fat_tree_size(FatTreeParams::from(params, dgx_h100_defaults(), false), params);
}
std::optional<TopologySize> size_nvl72(const Params& params) {
  return fat_tree_size(FatTreeParams::from(params, nvl72_defaults(), false), params);
}
std::optional<TopologySize> size_dragonfly(const Params& params) {
  return dragonfly_size(DragonflyParams::from(params));
}
std::optional<TopologySize> size_torus(const Params& params) { return torus_size(TorusParams::from(params)); }
std::optional<TopologySize> size_unknown(const Params& /*params*/) { return std::nullopt; }

const Generator* find(const Params& params) {
  auto name = params.get<std::string>("generator");
  std::vector<std::string> names;
  for (const auto& g : generators()) {
    if (g.name == name) return &g;
    names.push_back(g.name);
  }
  params.fail("generator", "unknown topology generator" + did_you_mean(name, names));
}

} // namespace

const std::vector<Generator>& generators() {
  static const std::vector<Generator> all{
      {"fat-tree", "GPU nodes (NVSwitch, one NIC per GPU) on a 2- or 3-tier folded Clos with oversubscription",
       &build_fat_tree, &size_fat_tree},
      {"rail-optimized", "like fat-tree, but NIC k of every node sits on rail leaf k; rails joined by spines",
       &build_rail_optimized, &size_rail_optimized},
      {"dgx-h100", "DGX H100 nodes (8 GPUs, 450 GB/s NVLink, 8 x 400 Gb/s NICs), rail-optimized; nodes defaults to 32 (a SuperPOD unit)",
       &build_dgx_h100, &size_dgx_h100},
      {"nvl72", "GB200 NVL72 racks (72-GPU NVLink domain at 900 GB/s) on a fat-tree; nodes (racks) defaults to 1",
       &build_nvl72, &size_nvl72},
      {"dragonfly", "GPU nodes on dragonfly routers: all-to-all groups joined by global links, minimal routing",
       &build_dragonfly, &size_dragonfly},
      {"torus", "2-D or 3-D torus of GPUs with direct links (TPU-style), dimension-order routing", &build_torus,
       &size_torus},
      {"file", "a graph imported from GraphML, JSON or CSV edge list (path, format), shortest-path routing",
       &build_imported, &size_unknown},
  };
  return all;
}

Topology build_topology(const Params& params) { return find(params)->build(params); }

std::optional<TopologySize> topology_size(const Params& params) { return find(params)->size(params); }

std::optional<double> topology_gpu_count(const Params& params) {
  std::optional<TopologySize> size = topology_size(params);
  return size ? std::optional<double>(size->gpus) : std::nullopt;
}

} // namespace trainsim::topo
