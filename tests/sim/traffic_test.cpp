// Bytes per rank pair put on the links of their route (sim/traffic).
//
// The fabric: 4 nodes of 2 GPUs, 4 NIC ports per leaf (topologies/fat_tree.hpp), so nodes 0-1
// hang off leaf 0 and nodes 2-3 off leaf 1, with 4 spines above. GPU 0 to GPU 1 stays in node
// 0: GPU -> NVSwitch -> GPU, 2 hops. GPU 0 to GPU 7 crosses the spines: GPU -> NIC -> leaf 0
// -> spine -> leaf 1 -> NIC -> GPU, 6 hops.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include "sim/traffic.hpp"
#include "topologies/fat_tree.hpp"

namespace trainsim::sim {
namespace {

topo::Topology small_fat_tree() {
  topo::FatTreeParams p;
  p.nodes = 4;
  p.gpus_per_node = 2;
  p.leaf_down_ports = 4;
  return topo::build_fat_tree(p);
}

std::set<int> channels(const topo::Topology& t, int from, int to) {
  std::vector<topo::Hop> hops;
  t.route(from, to, hops);
  std::set<int> out;
  for (topo::Hop h : hops) out.insert(h.channel());
  return out;
}

TEST(Traffic, BytesLandOnExactlyTheLinksOfTheRoute) {
  topo::Topology t = small_fat_tree();
  std::set<int> across = channels(t, 0, 7), back = channels(t, 7, 0), inside = channels(t, 0, 1);
  ASSERT_EQ(across.size(), 6u);
  ASSERT_EQ(inside.size(), 2u);
  Traffic traffic(t.gpu_count());
  traffic.add(0, 7, 100.0);
  traffic.add(0, 7, 50.0); // the same pair again: added up, routed once
  traffic.add(7, 0, 7.0);
  traffic.add(0, 1, 3.0);
  std::vector<double> bytes = traffic.channel_bytes(t);
  ASSERT_EQ(bytes.size(), 2 * static_cast<size_t>(t.link_count())); // one entry per link direction
  for (size_t c = 0; c < bytes.size(); ++c) {
    int ch = static_cast<int>(c);
    // A link direction carries what crosses it: each direction of a full-duplex link apart.
    double expected = (across.count(ch) ? 150.0 : 0.0) + (back.count(ch) ? 7.0 : 0.0) +
                      (inside.count(ch) ? 3.0 : 0.0);
    EXPECT_EQ(bytes[c], expected) << "channel " << c;
  }
  // 150 B over 6 hops, 7 B over 6 and 3 B over 2: 900 + 42 + 6 = 948 byte-hops in all.
  EXPECT_EQ(std::accumulate(bytes.begin(), bytes.end(), 0.0), 948.0);
}

TEST(Traffic, TheTwoDirectionsOfARouteUseDistinctChannels) {
  topo::Topology t = small_fat_tree();
  std::set<int> there = channels(t, 0, 7), back = channels(t, 7, 0);
  std::vector<int> shared;
  std::set_intersection(there.begin(), there.end(), back.begin(), back.end(),
                        std::back_inserter(shared));
  EXPECT_TRUE(shared.empty());
}

TEST(Traffic, NothingSentIsNothingCarried) {
  topo::Topology t = small_fat_tree();
  std::vector<double> bytes = Traffic(t.gpu_count()).channel_bytes(t);
  EXPECT_EQ(std::count(bytes.begin(), bytes.end(), 0.0), static_cast<long>(bytes.size()));
}

} // namespace
} // namespace trainsim::sim
