#include "models/fabric.hpp"

#include <gtest/gtest.h>

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
  FabricSummary f = summarize_fabric(grid(4, 2, 4), two_tier_pairs(4, kNvlink, kNetwork));
  ASSERT_EQ(f.stages.size(), 1u);
  EXPECT_EQ(f.stages[0].ep.name, "leaf");
  EXPECT_DOUBLE_EQ(f.stages[0].ep.seconds_per_byte, 3 / 50e9);
  EXPECT_EQ(f.stages[0].tp.name, "nvlink");
}

TEST(Fabric, PassesTakeTheFastestGroupAndReductionsTheSlowest) {
  // dp 2, tp 2: DP groups {0, 2} and {1, 3}. The even group's pair crosses a slow "global"
  // link (10 GB/s), the odd one's a leaf (50 GB/s). Collectives inside the passes may be on
  // the fast group's critical path; the reduction after the passes waits for the slow one.
  PairCosts pairs = [](int src, int dst) {
    return (src % 2 == 0 && dst % 2 == 0) ? PairCost{Seconds(3e-6), BytesPerSecond(10e9), "global"} : kNetwork;
  };
  StageFabric s = summarize_fabric(grid(2, 2, 1), pairs).stages.front();
  EXPECT_EQ(s.dp_pass.name, "leaf");
  EXPECT_EQ(s.dp_sync.name, "global");
  EXPECT_DOUBLE_EQ(s.dp_sync.bandwidth.value(), 10e9);
  EXPECT_DOUBLE_EQ(s.dp_sync.alpha.value(), 3e-6);
}

} // namespace
} // namespace trainsim
