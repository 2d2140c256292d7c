// The EP ranks' shares of the routed tokens under imbalance (models/moe_load.hpp), what each
// all-to-all pair sends (ExpertRouting::pair_load) and the memory check's busiest rank.
#include "models/moe_load.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "models/collectives.hpp"
#include "models/workload.hpp"

namespace trainsim {
namespace {

ModelSpec experts() {
  return {.layers = 2, .d_model = 1024, .d_ff = 4096, .heads = 16, .seq_len = 1024,
          .experts = 16, .top_k = 2};
}

ExecutionSpec ep4(double imbalance) {
  ExecutionSpec e{.dp = 4, .ep = 4, .global_batch = 4};
  e.moe_imbalance = imbalance;
  return e;
}

std::vector<double> sorted(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(ExpertLoad, SharesSpreadEvenlyAroundTheBalancedOne) {
  // ep 4, spread 0.3: from 0.7 to 1.3 in steps of 0.6 / 3 = 0.2, mean 1, placed by the seed.
  std::vector<double> s = sorted(expert_shares(ep4(0.3)));
  ASSERT_EQ(s.size(), 4u);
  EXPECT_DOUBLE_EQ(s[0], 0.7);
  EXPECT_NEAR(s[1], 0.9, 1e-15);
  EXPECT_NEAR(s[2], 1.1, 1e-15);
  EXPECT_DOUBLE_EQ(s[3], 1.3);
  EXPECT_NEAR(std::accumulate(s.begin(), s.end(), 0.0), 4.0, 1e-12);
  EXPECT_TRUE(expert_shares(ep4(0)).empty());
  ExecutionSpec one = ep4(0.3);
  one.ep = 1;
  EXPECT_TRUE(expert_shares(one).empty());
}

TEST(ExpertLoad, TheSeedPlacesTheSharesDeterministically) {
  ExecutionSpec a = ep4(0.3), b = ep4(0.3);
  b.moe_imbalance_seed = 5;
  EXPECT_EQ(expert_shares(a), expert_shares(a));
  EXPECT_EQ(sorted(expert_shares(a)), sorted(expert_shares(b)));
  // 4! = 24 placements: seeds 0 to 9 do not all give seed 0's.
  bool moved = false;
  for (int seed = 1; seed < 10; ++seed) {
    b.moe_imbalance_seed = seed;
    moved = moved || expert_shares(b) != expert_shares(a);
  }
  EXPECT_TRUE(moved);
}

TEST(ExpertLoad, ACapacityCapsEachRankAndPaddingEvensThemOut) {
  // Capacity 1.2, dropless share 1: 0.7, 0.9, 1.1 and min(1.3, 1.2) = 1.2.
  ExecutionSpec e = ep4(0.3);
  e.moe_capacity_factor = 1.2;
  std::vector<double> l = sorted(expert_loads(experts(), e));
  EXPECT_NEAR(l[3], 1.2, 1e-15);
  EXPECT_NEAR(l[0], 0.7, 1e-15);
  // Capacity 0.8: the program prices 0.8 of the rows; 0.7 / 0.8 = 0.875, the rest 0.8 / 0.8.
  e.moe_capacity_factor = 0.8;
  l = sorted(expert_loads(experts(), e));
  EXPECT_NEAR(l[0], 0.875, 1e-15);
  EXPECT_NEAR(l[1], 1.0, 1e-15);
  EXPECT_NEAR(l[3], 1.0, 1e-15);
  EXPECT_NEAR(busiest_expert_load(experts(), e), 1.0, 1e-15);
  e.moe_pad_to_capacity = true;
  EXPECT_EQ(expert_loads(experts(), e), std::vector<double>(4, 1.0));
  EXPECT_DOUBLE_EQ(busiest_expert_load(experts(), ep4(0.3)), 1.3);
  EXPECT_DOUBLE_EQ(busiest_expert_load(experts(), ep4(0)), 1.0);
}

TEST(ExpertLoad, EachPairSendsWhatTheExpertsOnTheFarSideTake) {
  // Towards the experts member 0 sends member 2 as much as 2's experts take; back from them,
  // as much as its own took of member 2's tokens.
  std::vector<double> loads{0.7, 0.9, 1.3, 1.1};
  ExpertRouting r{16, 2, &loads, true};
  EXPECT_DOUBLE_EQ(r.pair_load(0, 2), 1.3);
  r.to_experts = false;
  EXPECT_DOUBLE_EQ(r.pair_load(0, 2), 0.7);
  EXPECT_DOUBLE_EQ(ExpertRouting{}.pair_load(0, 2), 1.0);
}

TEST(ExpertLoad, TheMemoryCheckHoldsTheBusiestRanksRoutedRows) {
  // Spread 0.5, dropless: the busiest rank keeps 1.5 x the balanced routed rows, as a padded
  // capacity of 1.5 makes every rank keep (routed_share() 1.5, every load 1).
  ExecutionSpec uneven = ep4(0.5), padded = ep4(0);
  padded.moe_capacity_factor = 1.5;
  padded.moe_pad_to_capacity = true;
  ASSERT_DOUBLE_EQ(routed_share(experts(), padded), 1.5);
  Bytes a = memory_per_stage(experts(), uneven, GpuSpec{})[0].activations;
  Bytes b = memory_per_stage(experts(), padded, GpuSpec{})[0].activations;
  EXPECT_DOUBLE_EQ(a.value(), b.value());
  EXPECT_GT(a.value(), memory_per_stage(experts(), ep4(0), GpuSpec{})[0].activations.value());
}

} // namespace
} // namespace trainsim
