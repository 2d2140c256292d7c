// The pictures in docs/topologies.md are rendered from topologies/doc/<example>.dot, which must
// be exactly what export_dot() writes for the example: the docs cannot drift from the code.
// Regenerate with TRAINSIM_UPDATE_DOCS=1 topologies_tests --gtest_filter='DocPictures.*',
// then topologies/doc/render.sh.
#include "route_check.hpp"
#include "topologies/export.hpp"
#include "topologies/spec.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace trainsim::topo {
namespace {

struct Example {
  std::string file;
  std::map<std::string, std::string> params;
};

// Small configurations of each generator, as documented in docs/topologies.md. The Clos
// pictures show every cable (ecmp: pair); the default, spray, runs a leaf's uplinks as one.
const std::vector<Example>& examples() {
  static const std::vector<Example> all{
      {"fat-tree",
       {{"generator", "fat-tree"},
        {"ecmp", "pair"},
        {"nodes", "4"},
        {"gpus_per_node", "2"},
        {"leaf_down_ports", "4"},
        {"oversubscription", "2"}}},
      {"fat-tree-3-tier",
       {{"generator", "fat-tree"},
        {"ecmp", "pair"},
        {"nodes", "8"},
        {"gpus_per_node", "2"},
        {"leaf_down_ports", "2"},
        {"tiers", "3"},
        {"radix", "4"}}},
      {"rail-optimized",
       {{"generator", "rail-optimized"},
        {"ecmp", "pair"},
        {"nodes", "4"},
        {"gpus_per_node", "4"},
        {"leaf_down_ports", "2"}}},
      {"dgx-h100",
       {{"generator", "dgx-h100"}, {"nodes", "2"}, {"leaf_down_ports", "2"}, {"ecmp", "pair"}}},
      {"nvl72", {{"generator", "nvl72"}, {"oversubscription", "18"}, {"ecmp", "pair"}}},
      {"dragonfly",
       {{"generator", "dragonfly"},
        {"groups", "5"},
        {"routers_per_group", "2"},
        {"global_links", "2"},
        {"gpus_per_node", "2"}}},
      {"torus", {{"generator", "torus"}, {"dims", "4x4"}}},
  };
  return all;
}

std::string doc_path(const std::string& name) {
  return std::string(TRAINSIM_SOURCE_DIR) + "/topologies/doc/" + name + ".dot";
}

TEST(DocPictures, DotFilesMatchTheExporter) {
  bool update = std::getenv("TRAINSIM_UPDATE_DOCS") != nullptr;
  for (const auto& example : examples()) {
    std::ostringstream dot;
    export_dot(build_topology(test::spec(example.params)), dot);
    if (update) std::ofstream(doc_path(example.file)) << dot.str();
    std::ifstream in(doc_path(example.file));
    std::stringstream committed;
    committed << in.rdbuf();
    EXPECT_EQ(committed.str(), dot.str())
        << doc_path(example.file) << " is stale: see the comment at the top";
  }
}

} // namespace
} // namespace trainsim::topo
