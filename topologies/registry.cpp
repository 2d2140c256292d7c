#include "topologies/registry.hpp"

#include "topologies/fat_tree.hpp"

namespace trainsim::topo {

const std::vector<Generator>& generators() {
  static const std::vector<Generator> all{
      {"fat-tree", "8-GPU NVSwitch nodes, one NIC per GPU, 2-tier folded Clos (leaf/spine) with oversubscription",
       &build_fat_tree},
  };
  return all;
}

Topology build_topology(const Params& params) {
  auto name = params.get<std::string>("generator");
  std::vector<std::string> names;
  for (const auto& g : generators()) {
    if (g.name == name) return g.build(params);
    names.push_back(g.name);
  }
  params.fail("generator", "unknown topology generator" + did_you_mean(name, names));
}

} // namespace trainsim::topo
