// Failed links (Topology::fail_links, topologies/detour.hpp): routes that crossed one take a
// shortest path over the working links, as switches rehash flows whose next hop dropped out;
// the others keep theirs; cut fabrics are named by a pair of GPUs that can no longer meet.
#include <gtest/gtest.h>

#include "route_check.hpp"
#include "topologies/spec.hpp"

namespace trainsim::topo {
namespace {

using test::spec;

// 4 nodes of 4 GPUs, one node per leaf (4 down, 4 up ports): 4 leaves, every one wired to each
// of the 4 spines, every cable built (ecmp: pair).
Topology clos() {
  return build_topology(spec({{"generator", "fat-tree"},
                              {"nodes", "4"},
                              {"gpus_per_node", "4"},
                              {"leaf_down_ports", "4"},
                              {"ecmp", "pair"}}));
}

std::vector<int> links_of(const Topology& t, const std::string& vertex) {
  std::vector<int> ids;
  for (int id = 0; id < t.link_count(); ++id) {
    auto [a, b] = t.link_ends(id);
    if (t.vertex_name(a) == vertex || t.vertex_name(b) == vertex) ids.push_back(id);
  }
  return ids;
}

std::vector<Hop> route(const Topology& t, int src, int dst) {
  std::vector<Hop> hops;
  t.route(src, dst, hops);
  return hops;
}

bool same(const std::vector<Hop>& a, const std::vector<Hop>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](Hop x, Hop y) {
    return x.link == y.link && x.forward == y.forward;
  });
}

TEST(Detour, RoutesAvoidAFailedSpineAndOnlyTheirsChange) {
  Topology healthy = clos(), broken = clos();
  std::vector<int> spine0 = links_of(broken, "spine0");
  ASSERT_EQ(spine0.size(), 4u); // one cable to each leaf
  broken.fail_links(spine0);
  EXPECT_FALSE(broken.cut_pair().has_value());
  int detoured = 0;
  for (int s = 0; s < 16; ++s)
    for (int d = 0; d < 16; ++d) {
      if (s == d) continue;
      std::vector<Hop> before = route(healthy, s, d), after = route(broken, s, d);
      EXPECT_EQ(test::path_problem(broken, s, d, after), "") << s << "->" << d;
      bool crossed = std::any_of(before.begin(), before.end(),
                                 [&](Hop h) { return broken.link_failed(h.link); });
      EXPECT_TRUE(std::none_of(after.begin(), after.end(),
                               [&](Hop h) { return broken.link_failed(h.link); }));
      if (!crossed) {
        EXPECT_TRUE(same(before, after)) << s << "->" << d;
        continue;
      }
      ++detoured;
      // Another spine: the same six hops (GPU, NIC, leaf, spine, leaf, NIC, GPU), no relay
      // through a GPU.
      EXPECT_EQ(after.size(), before.size());
      EXPECT_TRUE(test::up_then_down(broken, test::visited(broken, s, after)));
    }
  // 192 pairs cross leaves; the pair hash puts about a quarter of them on spine 0.
  EXPECT_GT(detoured, 20);
  EXPECT_LT(detoured, 80);
}

TEST(Detour, NoDetourRelaysThroughAnotherGpu) {
  // GPU 1's NIC cable gone: NVLink still reaches GPU 1's node, but no switch does, and the
  // fabric does not forward through GPU 0 or 2 (NCCL's PXN is a library's choice, not a
  // route): GPU 1 and the other nodes' GPUs are cut apart.
  Topology t = clos();
  t.fail_links(links_of(t, "nic1"));
  auto cut = t.cut_pair();
  ASSERT_TRUE(cut.has_value());
  EXPECT_EQ(cut->first, 1);
  EXPECT_GE(cut->second, 4); // another node's GPU
}

TEST(Detour, EverySpineGoneCutsTheLeavesApart) {
  Topology four = clos();
  for (const char* s : {"spine0", "spine1", "spine2"}) four.fail_links(links_of(four, s));
  EXPECT_FALSE(four.cut_pair().has_value()); // spine 3 still joins the leaves
  four.fail_links(links_of(four, "spine3"));
  auto cut = four.cut_pair();
  ASSERT_TRUE(cut.has_value());
  EXPECT_NE(cut->first / 4, cut->second / 4); // GPUs of two different leaves
}

} // namespace
} // namespace trainsim::topo
