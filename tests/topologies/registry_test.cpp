#include "topologies/registry.hpp"
#include "topologies/spec.hpp"

#include "route_check.hpp"

#include <gtest/gtest.h>

#include <set>

namespace trainsim::topo {
namespace {

TEST(Registry, EveryGeneratorHasAUniqueNameAndOneLineDescription) {
  std::set<std::string> names;
  for (const auto& g : generators()) {
    EXPECT_TRUE(names.insert(g.name).second) << g.name;
    EXPECT_FALSE(g.description.empty()) << g.name;
    EXPECT_EQ(g.description.find('\n'), std::string::npos) << g.name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"fat-tree", "rail-optimized", "dgx-h100", "nvl72",
                                          "dragonfly", "torus", "file"}));
}

TEST(Registry, GeneratorsWithoutRequiredKeysBuildFromDefaults) {
  // dgx-h100: 32 nodes x 8; nvl72: one 72-GPU rack; dragonfly: 9 groups x 4 routers x 1 node x 8.
  EXPECT_EQ(build_topology(test::spec({{"generator", "dgx-h100"}})).gpu_count(), 256);
  EXPECT_EQ(build_topology(test::spec({{"generator", "nvl72"}})).gpu_count(), 72);
  EXPECT_EQ(build_topology(test::spec({{"generator", "dragonfly"}})).gpu_count(), 288);
}

TEST(Registry, EveryGeneratorCountsItsGpusWithoutBuilding) {
  // The count the loader checks before building must be the built graph's, for each
  // generator and its defaults: fat-tree 3 x 4, rail-optimized 2 x 8, dgx-h100 32 x 8,
  // nvl72 2 x 72, dragonfly 3 groups x 2 routers x 1 node x 8, torus 3 x 2 x 2.
  for (const std::map<std::string, std::string>& kv :
       std::vector<std::map<std::string, std::string>>{
           {{"generator", "fat-tree"}, {"nodes", "3"}, {"gpus_per_node", "4"}},
           {{"generator", "rail-optimized"}, {"nodes", "2"}},
           {{"generator", "dgx-h100"}},
           {{"generator", "nvl72"}, {"nodes", "2"}},
           {{"generator", "dragonfly"}, {"groups", "3"}, {"routers_per_group", "2"}},
           {{"generator", "torus"}, {"dims", "3x2x2"}}}) {
    TopologySpec spec = test::spec(kv); // parsed once: counted and built from the same values
    std::optional<TopologySize> counted = topology_size(spec);
    ASSERT_TRUE(counted.has_value()) << kv.begin()->second;
    EXPECT_EQ(counted->gpus, build_topology(spec).gpu_count()) << kv.begin()->second;
  }
  EXPECT_FALSE(topology_size(test::spec({{"generator", "file"}, {"path", "g.json"}})).has_value());
}

TEST(Registry, EveryGeneratorCountsItsVerticesAndLinksWithoutBuilding) {
  // The memory guard prices a graph before it is built: the counts must be the built graph's.
  // Each case has several switch tiers or groups: a 3-tier Clos of 4 pods, rails over 2 node
  // groups, dragonfly with parallel global links, a torus with a ring of 2 and one of 1.
  using Kv = std::map<std::string, std::string>;
  for (const Kv& kv :
       std::vector<Kv>{{{"generator", "fat-tree"},
                        {"nodes", "30"},
                        {"gpus_per_node", "4"},
                        {"leaf_down_ports", "8"},
                        {"tiers", "3"},
                        {"radix", "16"}},
                       {{"generator", "fat-tree"},
                        {"nodes", "9"},
                        {"leaf_down_ports", "16"},
                        {"oversubscription", "4"}},
                       {{"generator", "rail-optimized"}, {"nodes", "40"}, {"gpus_per_node", "4"}},
                       {{"generator", "dgx-h100"}},
                       {{"generator", "nvl72"}, {"nodes", "3"}},
                       {{"generator", "dragonfly"},
                        {"groups", "5"},
                        {"routers_per_group", "4"},
                        {"global_links", "2"}},
                       {{"generator", "dragonfly"}, {"groups", "1"}, {"routers_per_group", "3"}},
                       {{"generator", "torus"}, {"dims", "5x2x1"}},
                       {{"generator", "torus"}, {"dims", "4x3"}}}) {
    std::string what =
        kv.at("generator") + (kv.contains("nodes") ? " nodes " + kv.at("nodes") : "");
    TopologySpec spec = test::spec(kv);
    std::optional<TopologySize> size = topology_size(spec);
    ASSERT_TRUE(size.has_value()) << what;
    Topology t = build_topology(spec);
    EXPECT_EQ(size->gpus, t.gpu_count()) << what;
    EXPECT_EQ(size->vertices, static_cast<double>(boost::num_vertices(t.graph()))) << what;
    EXPECT_EQ(size->links, t.link_count()) << what;
  }
  EXPECT_FALSE(topology_size(test::spec({{"generator", "file"}, {"path", "g.json"}})).has_value());
}

TEST(Registry, ParsingChecksTheParametersBeforeAnythingIsCounted) {
  EXPECT_EQ(test::error_of([] {
              (void)test::spec({{"generator", "fat-tree"}, {"nodes", "2"}, {"tiers", "4"}});
            }),
            "s.yaml: system.topology.tiers = '4': must be 2 or 3");
  EXPECT_EQ(test::error_of([] {
              (void)test::spec({{"generator", "torus"}, {"dims", "4x4"}, {"dimz", "2"}});
            }),
            "s.yaml: system.topology.dimz = '2': unknown key (did you mean 'dims'?)");
}

TEST(Registry, RequiredKeysAreNamed) {
  EXPECT_EQ(test::error_of([] {
              build_topology(test::spec({{"generator", "fat-tree"}}));
            }),
            "s.yaml: system.topology.nodes = '': is missing");
  EXPECT_EQ(test::error_of([] {
              build_topology(test::spec({{"generator", "torus"}}));
            }),
            "s.yaml: system.topology.dims = '': is missing");
  EXPECT_EQ(test::error_of([] {
              build_topology(test::spec({{"generator", "file"}}));
            }),
            "s.yaml: system.topology.path = '': is missing");
  EXPECT_EQ(test::error_of([] { build_topology(test::spec({})); }),
            "s.yaml: system.topology.generator = '': is missing");
}

} // namespace
} // namespace trainsim::topo
