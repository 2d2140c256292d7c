#include "models/fabric.hpp"

#include "models/collective_cost.hpp"

#include <gtest/gtest.h>

#include <bit>

namespace trainsim {
namespace {

const PairCost kNvlink{Seconds(1e-6), BytesPerSecond(450e9), "nvlink"};
const PairCost kNetwork{Seconds(2e-6), BytesPerSecond(50e9), "leaf"};

ExecutionSpec grid(int dp, int tp, int ep) {
  ExecutionSpec e;
  e.dp = dp, e.tp = tp, e.ep = ep;
  return e;
}

TEST(Fabric, ARingIsPacedByItsSlowestPair) {
  // Nodes of 4 GPUs; ranks 0, 2, 4, 6: pairs 0->2 and 4->6 inside a node, 2->4 and 6->0 across.
  RingCost ring = ring_cost({0, 2, 4}, two_tier_pairs(4, kNvlink, kNetwork));
  EXPECT_EQ(ring.slowest.tier, "leaf");
  EXPECT_DOUBLE_EQ(ring.slowest.bandwidth.value(), 50e9);
  EXPECT_DOUBLE_EQ(ring.max_latency.value(), 2e-6);
  EXPECT_FALSE(ring.uniform);
  EXPECT_TRUE(ring_cost({0, 1, 4}, two_tier_pairs(4, kNvlink, kNetwork)).uniform);
}

TEST(Fabric, EveryPairwiseRoundOfASplitGroupCrossesNodes) {
  // EP members at ranks 0, 2, 4, 6 on nodes of 4: two members per node. Member 0's round 1
  // sends to rank 2 (same node) but receives from rank 6 (other node); round 2 goes to
  // rank 4; round 3 receives from rank 2 but sends to rank 6. Each round waits for its slower
  // side, the network: 3 x 2 us and 3 / 50e9 s per byte.
  RoundsCost r = rounds_cost({0, 2, 4}, 0, two_tier_pairs(4, kNvlink, kNetwork));
  EXPECT_DOUBLE_EQ(r.latency.value(), 3 * 2e-6);
  EXPECT_DOUBLE_EQ(r.seconds_per_byte, 3 / 50e9);
  EXPECT_EQ(r.tier, "leaf");
}

TEST(Fabric, AnExpertGroupThatTpDoesNotFillPaysTheNetwork) {
  // dp 4, tp 2, ep 4 on nodes of 4 GPUs: the EP group of tp rank 0 is ranks 0, 2, 4, 6, two
  // per node. Before the tier came from the graph, "tp >= GPUs per node" decided that this
  // group stayed inside NVLink; the summary must say the network instead.
  FabricSummary f = summarize_fabric(grid(4, 2, 4), two_tier_pairs(4, kNvlink, kNetwork), 4);
  ASSERT_EQ(f.stages.size(), 1u);
  EXPECT_EQ(f.stages[0].ep.name, "leaf");
  EXPECT_DOUBLE_EQ(f.stages[0].ep.seconds_per_byte, 3 / 50e9);
  ASSERT_EQ(f.stages[0].tp.size(), 1u); // the four TP groups are alike
  EXPECT_EQ(f.stages[0].tp.front().ring.name, "nvlink");
}

TEST(Fabric, PassesTakeTheCheapestGroupAndReductionsTheDearest) {
  // dp 2, tp 2: DP groups {0, 2} and {1, 3}. The even group's pair crosses a slow "global"
  // link (10 GB/s, 3 us), the odd one's a leaf (50 GB/s, 2 us). A collective inside the passes
  // may be on the fast group's critical path; the reduction after them waits for the slow one.
  // A ring all-reduce of 1e8 B over 2: 2 x (alpha + 1e8 / (2 B)).
  PairCosts pairs = [](int src, int dst) {
    return (src % 2 == 0 && dst % 2 == 0) ? PairCost{Seconds(3e-6), BytesPerSecond(10e9), "global"}
                                          : kNetwork;
  };
  StageFabric s = summarize_fabric(grid(2, 2, 1), pairs, 1).stages.front();
  ASSERT_EQ(s.dp.size(), 2u);
  CollectiveCost fast = cheapest("ring", 2, Bytes(1e8), 2, s.dp),
                 slow = dearest("ring", 2, Bytes(1e8), 2, s.dp);
  EXPECT_EQ(fast.tier, "leaf");
  EXPECT_DOUBLE_EQ(fast.total().value(), 2 * (2e-6 + 1e8 / (2 * 50e9)));
  EXPECT_EQ(slow.tier, "global");
  EXPECT_DOUBLE_EQ(slow.total().value(), 2 * (3e-6 + 1e8 / (2 * 10e9)));
}

TEST(Fabric, AHierarchicalCollectivePaysEachRingAtItsOwnTier) {
  // DP 8 over 2 nodes of 4 (tp 1): blocks of 4 members per node. An all-reduce of n = 8e8 B:
  // 2 x [(b-1)(alpha_node + n/(b B_node)) + (P-1)(alpha_net + n/(b P B_net))] with b = 4,
  // P = 2 = 2 x [3 (1 us + 2e8 / 450e9) + (2 us + 1e8 / 50e9)]; a ring over all 8 pays the
  // network in every one of its 2 x 7 steps, but runs as 4 channels (one leaving each node
  // through each member's NIC), each with a quarter of a step's n / 8: 14 x (2 us + 1e8 / 4 /
  // 50e9).
  StageFabric s =
      summarize_fabric(grid(8, 1, 1), two_tier_pairs(4, kNvlink, kNetwork), 4).stages.front();
  ASSERT_EQ(s.dp.size(), 1u);
  EXPECT_EQ(s.dp.front().block, 4);
  EXPECT_EQ(s.dp.front().channels, 4);
  double hierarchical = 2 * (3 * (1e-6 + 2e8 / 450e9) + (2e-6 + 1e8 / 50e9));
  EXPECT_DOUBLE_EQ(collective_cost("hierarchical", 2, Bytes(8e8), 8, s.dp.front()).total().value(),
                   hierarchical);
  EXPECT_DOUBLE_EQ(collective_cost("ring", 2, Bytes(8e8), 8, s.dp.front()).total().value(),
                   14 * (2e-6 + 1e8 / 4 / 50e9));
  // The tree's floor: 2 ceil(log2 8) = 6 steps of the closest pair (1 us) and n at 450 GB/s.
  EXPECT_DOUBLE_EQ(collective_cost("tree", 2, Bytes(8e8), 8, s.dp.front()).total().value(),
                   6e-6 + 8e8 / 450e9);
  // auto runs one or the other, so its all-reduce costs at least the cheaper of the two (the
  // tree's floor, 1.78 ms, under the ring's 14 x (2 us + 0.5 ms)); its reduce-scatter is a ring.
  EXPECT_DOUBLE_EQ(collective_cost("auto", 2, Bytes(8e8), 8, s.dp.front()).total().value(),
                   6e-6 + 8e8 / 450e9);
  EXPECT_DOUBLE_EQ(collective_cost("auto", 1, Bytes(8e8), 8, s.dp.front()).total().value(),
                   7 * (2e-6 + 1e8 / 4 / 50e9));
}

TEST(Fabric, TwoTiersSplitAtTheDomain) {
  // Domains of 8: a block of 8 consecutive ranks stays on NVLink, one of 9 (or 8.5 ranks
  // while the frontier's search has a fractional replica count) crosses the network.
  TwoTierFabric f{8,
                  {Seconds(1e-6), BytesPerSecond(450e9), "nvlink"},
                  {Seconds(3e-6), BytesPerSecond(50e9), "network"}};
  EXPECT_EQ(f.tier_for(1).name, "nvlink");
  EXPECT_EQ(f.tier_for(8).name, "nvlink");
  EXPECT_EQ(f.tier_for(8.5).name, "network");
  EXPECT_EQ(&f.tier_for(9), &f.network);
}

TEST(Fabric, CollectiveHalvesTakeRingAndTreeSteps) {
  // A ring half over p ranks takes p - 1 steps; a tree ceil(log2 p): 16 ranks -> 15 and 4,
  // 17 -> 16 and 5, a fractional 2.5 replicas -> 1.5 and 2; one rank none.
  EXPECT_EQ(half_steps("ring", 16), 15.0);
  EXPECT_EQ(half_steps("tree", 16), 4.0);
  EXPECT_EQ(half_steps("ring", 17), 16.0);
  EXPECT_EQ(half_steps("tree", 17), 5.0);
  EXPECT_EQ(half_steps("ring", 2.5), 1.5);
  EXPECT_EQ(half_steps("tree", 2.5), 2.0);
  EXPECT_EQ(half_steps("tree", 1), 0.0);
  // The tree floor's height was bit_width(p - 1), the same integer for every whole p.
  for (unsigned p = 2; p <= (1u << 20); ++p)
    ASSERT_EQ(half_steps("tree", p), static_cast<double>(std::bit_width(p - 1))) << p;
}

} // namespace
} // namespace trainsim
