// The collective catalogue (models/collectives.hpp) as the one place that knows an
// algorithm: every entry carries the bound's price for what it supports, and the all-to-alls'
// prices (collective_price::pairwise, deepep) match their schedules, derived by hand.
#include "models/collectives.hpp"

#include <gtest/gtest.h>

#include "models/collective_cost.hpp"

namespace trainsim {
namespace {

TEST(CollectiveCatalogue, EveryEntryHasTheBoundsPriceForWhatItSupports) {
  for (const CollectiveInfo& info : collective_catalogue()) {
    bool exchanges = info.supports(CollectiveOp::all_to_all);
    bool reduces = info.supports(CollectiveOp::all_reduce) ||
                   info.supports(CollectiveOp::reduce_scatter) ||
                   info.supports(CollectiveOp::all_gather);
    EXPECT_EQ(info.exchange != nullptr, exchanges) << info.name;
    EXPECT_EQ(info.price != nullptr, reduces) << info.name;
    EXPECT_FALSE(info.node_hops && !exchanges) << info.name;
  }
  EXPECT_EQ(default_collective(CollectiveOp::all_to_all), "pairwise");
}

// An EP group of 16: two nodes of 8, NVLink inside at 1 us and 400 GB/s, the network across
// at 5 us and 50 GB/s.
GroupTiers two_nodes() {
  GroupTiers g;
  g.block = 8;
  g.within = {Seconds(1e-6), BytesPerSecond(400e9), "nvlink"};
  g.across = {Seconds(5e-6), BytesPerSecond(50e9), "leaf"};
  g.closest = g.within;
  g.ring = g.across;
  return g;
}

TEST(CollectiveCatalogue, PairwisePricesItsRounds) {
  // 15 rounds: 7 over NVLink, 8 over the network; the rounds' sum is their alphas and
  // 1/B per round: alpha 7 x 1 us + 8 x 5 us = 47 us, seconds per byte 7/400e9 + 8/50e9.
  RoundsTier rounds{Seconds(47e-6), 7 / 400e9 + 8 / 50e9, "leaf"};
  const CollectiveInfo& pairwise = *find_collective("pairwise");
  // 16 MB out of each member: 1 MB a round, 1e6 x (1.75e-11 + 1.6e-10) = 177.5 us.
  CollectiveCost c = pairwise.exchange(Bytes(16e6), 16, rounds, {}, {});
  EXPECT_DOUBLE_EQ(c.latency.value(), 47e-6);
  EXPECT_NEAR(c.transfer.value(), 177.5e-6, 1e-12);
  EXPECT_EQ(c.tier, "leaf");
}

TEST(CollectiveCatalogue, DeepEpSendsEachTokenOncePerNodeThenForwards) {
  RoundsTier rounds{Seconds(47e-6), 0, "leaf"};
  const CollectiveInfo& deepep = *find_collective("deepep");
  EXPECT_TRUE(deepep.node_hops);
  // 16 MB out of each member, 1 MB a member. Without routing every copy crosses: the other
  // node's 8 MB at 50 GB/s = 160 us, then the 2 x 1 MB for each of 7 node peers over NVLink,
  // 14 MB at 400 GB/s = 35 us; alphas 5 + 1 us.
  CollectiveCost c = deepep.exchange(Bytes(16e6), 16, rounds, {two_nodes()}, {});
  EXPECT_NEAR(c.latency.value(), 6e-6, 1e-15);
  EXPECT_NEAR(c.transfer.value(), 195e-6, 1e-12);
  // DeepSeek-V3's routing, 256 experts, top 8: the network hop carries the distinct tokens
  // only, deepep_network_share(256, 8, 16, 8) of the copies (0.249: a token reaches a node of
  // 128 experts with probability 1 - C(128, 8)/C(256, 8), against 8 x 8 / 16 = 4 copies).
  double share = deepep_network_share(256, 8, 16, 8);
  CollectiveCost routed = deepep.exchange(Bytes(16e6), 16, rounds, {two_nodes()}, {256, 8});
  EXPECT_NEAR(routed.transfer.value(), 160e-6 * share + 35e-6, 1e-12);
  EXPECT_NEAR(share, 0.249, 0.001);
}

} // namespace
} // namespace trainsim
