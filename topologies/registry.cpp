#include "topologies/registry.hpp"

#include "topologies/dragonfly.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/import.hpp"
#include "topologies/torus.hpp"

namespace trainsim::topo {

namespace {

using Parameters = TopologySpec::Parameters;

Parameters parse_rail_optimized(const Params& section) {
  FatTreeParams defaults;
  defaults.rail_optimized =
      true; // rails change the leaf count: one leaf per rail per group of nodes
  return parse_fat_tree(section, defaults, true);
}

} // namespace

const std::vector<Generator>& generators() {
  static const std::vector<Generator> all{
      {"fat-tree",
       "GPU nodes (NVSwitch, one NIC per GPU) on a 2- or 3-tier folded Clos with oversubscription",
       [](const Params& s) -> Parameters { return parse_fat_tree(s, FatTreeParams{}, true); }},
      {"rail-optimized",
       "like fat-tree, but NIC k of every node sits on rail leaf k; rails joined by spines",
       &parse_rail_optimized},
      {"dgx-h100",
       "DGX H100 nodes (8 GPUs, 450 GB/s NVLink, 8 x 400 Gb/s NICs), rail-optimized; nodes "
       "defaults to 32 (a SuperPOD unit)",
       [](const Params& s) -> Parameters { return parse_fat_tree(s, dgx_h100_defaults(), false); }},
      {"nvl72",
       "GB200 NVL72 racks (72-GPU NVLink domain at 900 GB/s) on a fat-tree; nodes (racks) defaults "
       "to 1",
       [](const Params& s) -> Parameters { return parse_fat_tree(s, nvl72_defaults(), false); }},
      {"dragonfly",
       "GPU nodes on dragonfly routers: all-to-all groups joined by global links, minimal routing",
       [](const Params& s) -> Parameters { return parse_dragonfly(s); }},
      {"torus", "2-D or 3-D torus of GPUs with direct links (TPU-style), dimension-order routing",
       [](const Params& s) -> Parameters { return parse_torus(s); }},
      {"file",
       "a graph imported from GraphML, JSON or CSV edge list (path, format), shortest-path routing",
       [](const Params& s) -> Parameters { return parse_import(s); }},
  };
  return all;
}

const Generator& find_generator(const Params& section) {
  auto name = section.get<std::string>("generator");
  std::vector<std::string> names;
  for (const auto& g : generators()) {
    if (g.name == name) return g;
    names.push_back(g.name);
  }
  section.fail("generator", "unknown topology generator" + did_you_mean(name, names));
}

} // namespace trainsim::topo
