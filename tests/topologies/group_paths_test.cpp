// Which groups' exchanges share no link but their members' own (topo::behind_one_switch): fast
// mode merges a balanced all-to-all's rounds there (sim/collective_pairwise.cpp). On the fat
// tree's defaults a node's GPUs each have one link to the node's NVSwitch, and a node one NIC:
// across nodes a route runs GPU -> NIC -> leaf -> NIC -> GPU. On a rail-optimized fabric each
// GPU has a NIC of its own, and NIC k of every node hangs off rail leaf k.
#include "topologies/group_paths.hpp"

#include <gtest/gtest.h>

#include "route_check.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/spec.hpp"

namespace trainsim::topo {
namespace {

Topology nodes_of(int nodes, int gpus_per_node) {
  FatTreeParams p;
  p.nodes = nodes;
  p.gpus_per_node = gpus_per_node;
  return build_fat_tree(p);
}

// GPU `rank`'s link to its NVSwitch.
int nvlink_of(const Topology& t, int rank) {
  for (int id = 0; id < t.link_count(); ++id) {
    auto [a, b] = t.link_ends(id);
    if (t.link(id).tier == Tier::nvlink && (a == t.gpu_vertex(rank) || b == t.gpu_vertex(rank)))
      return id;
  }
  return -1;
}

TEST(BehindOneSwitch, AnyGroupOfOneNodesGpusIs) {
  Topology t = nodes_of(2, 8);
  EXPECT_TRUE(behind_one_switch({0, 1, 8}, t));  // node 0, whole
  EXPECT_TRUE(behind_one_switch({8, 1, 4}, t));  // half of node 1
  EXPECT_TRUE(behind_one_switch({1, 2, 4}, t));  // GPUs 1, 3, 5, 7
  EXPECT_FALSE(behind_one_switch({0, 1, 1}, t)); // one member exchanges nothing
}

// Across nodes, each on its own NIC under one leaf: up to the leaf and down again.
TEST(BehindOneSwitch, OneGpuOfEachNodeUnderOneLeafIs) {
  Topology t = nodes_of(2, 8);
  EXPECT_TRUE(behind_one_switch({0, 8, 2}, t));  // GPU 0 and GPU 8, each node's NIC
  EXPECT_FALSE(behind_one_switch({4, 1, 8}, t)); // GPUs 4-11: NVLink pairs and network pairs
  Topology one_per_node = nodes_of(4, 1);
  EXPECT_TRUE(behind_one_switch({0, 1, 4}, one_per_node)); // four hops through the leaf
}

// 16 nodes of 8 GPUs, 8 nodes per rail leaf (leaf_down_ports 8): GPU k of nodes 0-7 reach one
// another through rail leaf k, each over its own NIC and NIC cable; nodes 8-15 are under other
// leaves, reached through the spines, whose links ECMP shares among pairs.
TEST(BehindOneSwitch, GpusOfOneRailUnderOneLeafAre) {
  Topology t = build_topology(test::spec({{"generator", "rail-optimized"},
                                          {"nodes", "16"},
                                          {"gpus_per_node", "8"},
                                          {"leaf_down_ports", "8"}}));
  EXPECT_TRUE(behind_one_switch({0, 8, 8}, t));   // GPU 0 of nodes 0-7: rail leaf 0
  EXPECT_TRUE(behind_one_switch({3, 16, 4}, t));  // GPU 3 of nodes 0, 2, 4, 6
  EXPECT_FALSE(behind_one_switch({0, 8, 16}, t)); // GPU 0 of every node: over the spines
  EXPECT_FALSE(behind_one_switch({0, 1, 16}, t)); // nodes 0 and 1 whole: NVLink and network
}

// Two GPUs of one node share its one NIC on the fat tree: their rounds across nodes meet there.
TEST(BehindOneSwitch, MembersSharingANicAreNot) {
  Topology t = nodes_of(2, 2);
  EXPECT_FALSE(behind_one_switch({0, 1, 4}, t));
  EXPECT_TRUE(behind_one_switch({0, 2, 2}, t)); // GPU 0 of each node: its own NIC
}

// A member on a slower link would pace its own rounds; the others' would not: not alike.
TEST(BehindOneSwitch, AMemberOnADegradedLinkBreaksIt) {
  Topology t = nodes_of(1, 8);
  t.degrade_link(nvlink_of(t, 3), 0.5, Seconds(0));
  EXPECT_FALSE(behind_one_switch({0, 1, 8}, t));
  EXPECT_TRUE(behind_one_switch({4, 1, 4}, t)); // GPUs 4-7 do not use GPU 3's link
}

} // namespace
} // namespace trainsim::topo
