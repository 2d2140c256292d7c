// Which groups' exchanges share no link but their members' own (topo::behind_one_switch): fast
// mode merges a balanced all-to-all's rounds there (sim/collective_pairwise.cpp). On the fat
// tree's defaults a node's GPUs each have one link to the node's NVSwitch; across nodes a route
// runs GPU -> NIC -> leaf -> NIC -> GPU.
#include "topologies/group_paths.hpp"

#include <gtest/gtest.h>

#include "topologies/fat_tree.hpp"

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

TEST(BehindOneSwitch, AGroupAcrossNodesIsNot) {
  Topology t = nodes_of(2, 8);
  EXPECT_FALSE(behind_one_switch({4, 1, 8}, t)); // GPUs 4-11: some pairs cross the network
  EXPECT_FALSE(behind_one_switch({0, 8, 2}, t)); // GPU 0 and GPU 8
  Topology one_per_node = nodes_of(4, 1);
  EXPECT_FALSE(behind_one_switch({0, 1, 4}, one_per_node)); // four hops through the leaf
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
