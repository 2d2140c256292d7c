#include "topologies/spec.hpp"

#include "topologies/dragonfly.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/import.hpp"
#include "topologies/registry.hpp"
#include "topologies/torus.hpp"

namespace trainsim::topo {
namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};

} // namespace

TopologySpec parse_topology(const Params& section) {
  const Generator& generator = find_generator(section);
  TopologySpec spec;
  spec.generator = generator.name;
  spec.params = generator.parse(section);
  spec.given = section.values(); // every key is known by now: parse() rejected the others
  return spec;
}

std::optional<TopologySize> topology_size(const TopologySpec& spec) {
  return std::visit(
      Overloaded{[](const FatTreeParams& p) { return std::optional(fat_tree_size(p)); },
                 [](const DragonflyParams& p) { return std::optional(dragonfly_size(p)); },
                 [](const TorusParams& p) { return std::optional(torus_size(p)); },
                 [](const ImportParams&) { return std::optional<TopologySize>(); }},
      spec.params);
}

Topology build_topology(const TopologySpec& spec) {
  return std::visit(Overloaded{[](const FatTreeParams& p) { return build_fat_tree(p); },
                               [](const DragonflyParams& p) { return build_dragonfly(p); },
                               [](const TorusParams& p) { return build_torus(p); },
                               [](const ImportParams& p) { return build_imported(p); }},
                    spec.params);
}

std::vector<TopologySetting> topology_settings(const TopologySpec& spec) {
  std::vector<TopologySetting> out{{"generator", spec.generator, {}}};
  std::vector<TopologySetting> keys =
      std::visit(Overloaded{[](const FatTreeParams& p) { return fat_tree_settings(p); },
                            [](const DragonflyParams& p) { return dragonfly_settings(p); },
                            [](const TorusParams& p) { return torus_settings(p); },
                            [](const ImportParams& p) { return import_settings(p); }},
                 spec.params);
  out.insert(out.end(), keys.begin(), keys.end());
  for (TopologySetting& s : out) {
    auto written = spec.given.find(s.key);
    if (written == spec.given.end()) continue;
    s.text =
        written->second; // what the user wrote reads better than its SI form, and parses the same
    s.given = true;
  }
  return out;
}

} // namespace trainsim::topo
