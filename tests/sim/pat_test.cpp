// PAT (sim/collective_pat.cpp) on small contention-free fat trees, against its alpha-beta
// time worked out by hand, in both fidelities; and its schedule and price (models/).
//
// The graphs are those of collectives_test.cpp: across nodes of one leaf GPU -> NIC -> leaf
// -> NIC -> GPU, alpha = 4 x 0.5 us = 2 us, B = 50 GB/s per NIC; inside a node GPU ->
// NVSwitch -> GPU, alpha = 1 us, B = 450 GB/s. Every step of PAT sends one flow out of each
// member's NIC and receives one into it, so steps never share a link.
#include <gtest/gtest.h>

#include <cmath>

#include "models/collective_cost.hpp"
#include "sim/collective_run.hpp"
#include "tests/sim/collective_fixtures.hpp"

namespace trainsim::sim {
namespace {

using namespace testing;

// K = ceil(log2 p) steps whose blocks add up to p - 1, for every p: 8 takes 1, 2, 4 blocks
// (distances 4, 2, 1), 5 takes 1, 1, 2 (before step 2 a member holds the blocks 0, 2, 4
// places ahead: 0 + 1 and 2 + 1 are below 5, 4 + 1 is not).
TEST(PatSchedule, TakesCeilLog2PStepsAndEveryBlockOnce) {
  EXPECT_EQ(pat_steps(1), 0);
  EXPECT_EQ(pat_steps(2), 1);
  EXPECT_EQ(pat_steps(8), 3);
  EXPECT_EQ(pat_steps(9), 4);
  struct Step {
    int p, step, blocks;
  };
  for (Step s :
       {Step{8, 0, 1}, Step{8, 1, 2}, Step{8, 2, 4}, Step{5, 0, 1}, Step{5, 1, 1}, Step{5, 2, 2}})
    EXPECT_EQ(pat_blocks(s.p, s.step), s.blocks) << s.p << " step " << s.step;
  EXPECT_EQ(pat_distance(8, 0), 4);
  EXPECT_EQ(pat_distance(8, 2), 1);
  EXPECT_EQ(pat_distance(5, 0), 4);
  for (int p = 2; p <= 4097; ++p) {
    EXPECT_EQ(pat_steps(p), static_cast<int>(std::ceil(std::log2(p)))) << p;
    int blocks = 0;
    for (int s = 0; s < pat_steps(p); ++s) blocks += pat_blocks(p, s);
    EXPECT_EQ(blocks, p - 1) << p;
  }
}

// 8 nodes of 1 GPU, n = 64 KiB, blocks of 8 KiB = 8192 B, 0.16384 us each at 50 GB/s:
// 3 steps of 2 us and 1 + 2 + 4 = 7 blocks: 6 + 1.14688 = 7.14688 us per half, where the
// ring pays 7 x (2 + 0.16384) = 15.147 us.
TEST(PatTest, AHalfTakesLog2PLatenciesAndPMinus1Blocks) {
  topo::Topology t = fat_tree(8, 1);
  expect_both(t, "pat", CollectiveOp::all_gather, 8, 64 * KiB, 7.14688e-6);
  expect_both(t, "pat", CollectiveOp::reduce_scatter, 8, 64 * KiB, 7.14688e-6);
  expect_both(t, "pat", CollectiveOp::all_reduce, 8, 64 * KiB, 2 * 7.14688e-6);
  expect_both(t, "ring", CollectiveOp::all_gather, 8, 64 * KiB, 15.147e-6);
}

// p = 5, n = 5 x 64 KiB: blocks of 65536 B, 1.31072 us; 3 steps of 2 us and 4 blocks:
// 6 + 5.24288 = 11.24288 us.
TEST(PatTest, AGroupOfFiveTakesThreeSteps) {
  expect_both(fat_tree(5, 1), "pat", CollectiveOp::all_gather, 5, 5 * 64 * KiB, 11.24288e-6);
}

// Every size up to 9 returns on every member (no receive waits for a send that never comes)
// and takes ceil(log2 p) x 2 us + (p - 1) / p x n / B; n = 64 MiB, so n / B = 1342.18 us.
TEST(PatTest, EveryGroupSizeCompletesAtItsFormula) {
  topo::Topology t = fat_tree(9, 1);
  for (int p = 2; p <= 9; ++p)
    for (CollectiveOp op : {CollectiveOp::all_gather, CollectiveOp::reduce_scatter}) {
      double expected = pat_steps(p) * 2e-6 + (p - 1.0) / p * 64 * MiB / 50e9;
      expect_both(t, "pat", op, p, 64 * MiB, expected);
    }
}

// One member per node of 4 nodes x 4 GPUs (stride 4): p = 4, n = 64 KiB, blocks of 16384 B
// (0.32768 us): 2 steps of 2 us and 3 blocks, 4 + 0.98304 = 4.98304 us.
TEST(PatTest, RunsOnStridedGroupsWithOneMemberPerNode) {
  expect_both(fat_tree(4, 4), "pat", CollectiveOp::all_gather, 4, 64 * KiB, 4.98304e-6, {0, 4});
}

// NCCL runs PAT only with one rank per node: inside one node it is the ring, 7 steps of
// 1 us + (64 MiB / 8) / 450e9 = 19.641 us = 137.49 us (collectives_test.cpp).
TEST(PatTest, InsideANodeItIsTheRing) {
  expect_both(fat_tree(1, 8), "pat", CollectiveOp::all_gather, 8, 64 * MiB, 137.49e-6);
}

// Fast mode folds back-to-back calls into one flow per step; 3 calls take 3 x 7.14688 us.
TEST(PatTest, RepeatedCallsAddUp) {
  topo::Topology t = fat_tree(8, 1);
  expect_both(t, "pat", CollectiveOp::all_gather, 8, 64 * KiB, 3 * 7.14688e-6, {0, 1, 3});
}

// The bound's price with one member per node: K alpha + (p-1)/p n / B per half at the closest
// pair, here 3 x 2 us + 7/8 x 8e8 / 50e9 = 6 us + 14 ms; otherwise the ring's.
TEST(PatCost, PricesLog2PStepsWithOneMemberPerNodeAndARingOtherwise) {
  Tier leaf{Seconds(2e-6), BytesPerSecond(50e9), "leaf"};
  GroupTiers g;
  g.ring = g.closest = leaf;
  g.one_per_node = true;
  EXPECT_DOUBLE_EQ(collective_cost("pat", 1, Bytes(8e8), 8, g).total().value(),
                   3 * 2e-6 + 7.0 / 8 * 8e8 / 50e9);
  EXPECT_DOUBLE_EQ(collective_cost("pat", 2, Bytes(8e8), 8, g).total().value(),
                   2 * (3 * 2e-6 + 7.0 / 8 * 8e8 / 50e9));
  g.one_per_node = false;
  EXPECT_DOUBLE_EQ(collective_cost("pat", 1, Bytes(8e8), 8, g).total().value(),
                   collective_cost("ring", 1, Bytes(8e8), 8, g).total().value());
}

} // namespace
} // namespace trainsim::sim
