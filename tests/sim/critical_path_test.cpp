// The step's critical path (sim/critical_path.hpp): the chain of kernels and hand-overs the
// last GPU's finish waited on, followed as the simulation runs.
#include "tests/sim/step_fixtures.hpp"

#include <algorithm>

#include "models/faults.hpp"
#include "tools/study/critical_path.hpp"

namespace trainsim {
namespace {

using namespace testing;

Evaluation followed(const Scenario& s) {
  return evaluate(build_unguarded(s), {.fidelity = sim::Fidelity::fast, .critical_path = true});
}

// Each stretch starts where the one before handed over, no earlier than the hand-over, and the
// chain runs from the step's start to its end.
void expect_chain(const std::vector<sim::PathStep>& path, double step) {
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(path.front().from_rank, -1);
  EXPECT_EQ(path.front().start, 0.0);
  EXPECT_NEAR(path.back().end, step, 1e-12 * step);
  for (size_t k = 0; k < path.size(); ++k) {
    EXPECT_LE(path[k].start, path[k].end) << k;
    if (k == 0) continue;
    EXPECT_EQ(path[k].handed, path[k - 1].end) << k;
    EXPECT_GE(path[k].start, path[k].handed) << k;
  }
}

// Four single-GPU nodes, dp 4: kernels, then the ring all-reduce of the gradients.
Scenario four_way(std::vector<SlowGpus> slow = {}) {
  Scenario s = scenario(four_nodes(), {.dp = 4, .global_batch = 4}, mlp());
  s.faults.slow_gpus = std::move(slow);
  return s;
}

TEST(CriticalPath, OffWhenNotAskedFor) {
  Outcome o = simulate(four_way());
  EXPECT_TRUE(o.result.critical_path.empty());
  EXPECT_TRUE(o.summary.critical_path.empty());
}

TEST(CriticalPath, AHealthyRingKeepsToTheLastRank) {
  // Every rank reaches the all-reduce at once (no speed spread), so no receive waits for a
  // sender that came later: the path never leaves the GPU that finishes last.
  Evaluation e = followed(four_way());
  expect_chain(e.result.critical_path, e.result.step_time.value());
  EXPECT_EQ(e.summary.critical_path.ranks, 1);
  EXPECT_TRUE(e.summary.critical_path.hand_overs.empty());
}

TEST(CriticalPath, ASlowRankLeadsTheRingAllReduce) {
  // Rank 2 at half speed runs its kernels for 2C where the others take C. Every other rank's
  // ring receives wait for data that starts at rank 2, so the path starts on rank 2, runs its
  // kernels (2C) and is handed round the ring over DP: rank 2 is where it spends the most.
  Evaluation healthy = followed(four_way());
  Evaluation slow =
      followed(four_way({{.which = SlowGpus::Which::rank, .index = 2, .factor = 0.5}}));
  const std::vector<sim::PathStep>& path = slow.result.critical_path;
  expect_chain(path, slow.result.step_time.value());
  double c = healthy.result.ranks[2][sim::Category::compute].value();
  EXPECT_EQ(path.front().rank, 2);
  EXPECT_GE(path.front().end, 2 * c * (1 - 1e-9));
  // Rank 2 posts last: its send releases rank 3's receive (2 -> 3), its receive rank 1's send
  // to it (1 -> 2, the hand-over reversed), two merged ring flows that end together. Either
  // carries the path on, and takes all of the step after rank 2's kernels but a few latencies.
  ASSERT_GE(path.size(), 2u);
  EXPECT_EQ(path[1].rank, path[1].reverse ? 1 : 3);
  EXPECT_EQ(path[1].via, sim::PathStep::Via::dp);
  double rest = slow.result.step_time.value() - path[0].end;
  EXPECT_GT(path[1].start - path[1].handed, 0.99 * rest);
  const CriticalPath& sum = slow.summary.critical_path;
  ASSERT_FALSE(sum.longest_on.empty());
  EXPECT_EQ(sum.longest_on.front().first, 2);
  ASSERT_FALSE(sum.hand_overs.empty());
  EXPECT_EQ(sum.hand_overs.front().via, "dp");
  // Each ring flow has its link directions to itself (four_nodes()): none of the transfer
  // is contention.
  EXPECT_LT(sum.hand_overs.front().contention.value(),
            1e-6 * sum.hand_overs.front().transfer.value());
  EXPECT_GT(sum.ranks, 1);
  EXPECT_FALSE(sum.links.empty()); // the ring's hand-overs cross the leaf
}

TEST(CriticalPath, FollowsTheGradientStreamInBothModes) {
  // The gradients reduced on the DP stream beside the backward (dp_overlap), a bucket per
  // layer. A layer's backward is twice its forward, so of the healthy kernel time C the
  // forward takes C/3 and each of the 2 layers' backward C/3. The last layer's bucket is
  // posted after the forward and its backward: 2C/3, which rank 2 at half speed takes 4C/3.
  // Its stream's all-reduce then waits for no one, and the others' wait for it: the path
  // leaves rank 2's kernels there, for its stream, in fast mode and in fine mode.
  double c = followed(four_way()).result.ranks[2][sim::Category::compute].value();
  for (sim::Fidelity fidelity : {sim::Fidelity::fast, sim::Fidelity::fine}) {
    Scenario s = four_way({{.which = SlowGpus::Which::rank, .index = 2, .factor = 0.5}});
    s.execution.dp_overlap = true;
    Evaluation e = evaluate(build_unguarded(s), {.fidelity = fidelity, .critical_path = true});
    const std::vector<sim::PathStep>& path = e.result.critical_path;
    expect_chain(path, e.result.step_time.value());
    ASSERT_GE(path.size(), 2u);
    EXPECT_EQ(path[0].rank, 2);
    EXPECT_NEAR(path[0].end, 4 * c / 3, 1e-6 * c);
    EXPECT_EQ(path[1].rank, 2);
    EXPECT_EQ(path[1].via, sim::PathStep::Via::stream);
    EXPECT_TRUE(path[1].stream);
  }
}

TEST(CriticalPath, StaysAChainInFineModeOnAnExpertJobAcrossNodes) {
  // Fine mode runs every ring round and every all-to-all pair: many hand-overs between one
  // send and its receipt. The path must still run stretch after stretch from 0 to the step,
  // and through the slow rank.
  Scenario s = sixteen_way_experts(2);
  s.faults.slow_gpus = {{.which = SlowGpus::Which::rank, .index = 5, .factor = 0.5}};
  Evaluation e =
      evaluate(build_unguarded(s), {.fidelity = sim::Fidelity::fine, .critical_path = true});
  expect_chain(e.result.critical_path, e.result.step_time.value());
  ASSERT_FALSE(e.summary.critical_path.slow_on.empty());
  EXPECT_EQ(e.summary.critical_path.slow_on.front().first, 5);
}

TEST(CriticalPath, APipelineHandsItsMicrobatchToTheNextStageAndBack) {
  // pp 2, one microbatch: stage 0's forward, the activations to stage 1 (GPU 1), its forward
  // and backward, the gradients back to stage 0, whose backward ends the step. Two hand-overs
  // over pp, each a transfer of the microbatch's activations: 4096 tokens x 4096 x 2 B =
  // 33.6 MB at 50 GB/s, 0.67 ms, plus the hops' latencies.
  Scenario s = scenario(fat_tree(2, 1), {.pp = 2, .global_batch = 1}, mlp());
  Evaluation e = followed(s);
  const std::vector<sim::PathStep>& path = e.result.critical_path;
  expect_chain(path, e.result.step_time.value());
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(path[0].rank, 0);
  EXPECT_EQ(path[1].rank, 1);
  EXPECT_EQ(path[2].rank, 0);
  EXPECT_EQ(path[1].via, sim::PathStep::Via::pp);
  EXPECT_EQ(path[2].via, sim::PathStep::Via::pp);
  // Nothing else moves meanwhile: each transfer takes its time on idle links, the route's
  // latency plus the bytes at the NICs' 50 GB/s, and no time is left for contention.
  double transfer = 4096.0 * 4096 * 2 / 50e9;
  for (size_t k : {1u, 2u}) {
    EXPECT_GT(path[k].start - path[k].handed, transfer);
    EXPECT_LT(path[k].start - path[k].handed, transfer * 1.01);
    EXPECT_NEAR(path[k].alone, path[k].start - path[k].handed, 1e-6 * transfer);
  }
  EXPECT_LT(path[0].alone, 0); // the step's start: no transfer
  const CriticalPath& sum = e.summary.critical_path;
  EXPECT_EQ(sum.ranks, 2);
  ASSERT_EQ(sum.hand_overs.size(), 1u);
  EXPECT_EQ(sum.hand_overs[0].via, "pp");
  EXPECT_EQ(sum.hand_overs[0].count, 2);
  EXPECT_LT(sum.hand_overs[0].contention.value(), 1e-6 * transfer);
}

TEST(CriticalPath, ADegradedLinkIsNoContention) {
  // The pipeline above with GPU 1's NIC link at half rate and 5 us more latency: each pp
  // transfer moves 33.6 MB at 25 GB/s, 1.34 ms, over four hops of 0.5 us and the 5 us, alone
  // on its links. The idle-link time is the degraded link's, so none of it is contention.
  DegradedLinks nic1;
  nic1.which = DegradedLinks::Which::nic;
  nic1.rank = 1;
  nic1.factor = 0.5;
  nic1.extra_latency = Seconds(5e-6);
  Scenario s = scenario(fat_tree(2, 1), {.pp = 2, .global_batch = 1}, mlp());
  s.faults.degraded_links = {nic1};
  Evaluation e = followed(s);
  const std::vector<sim::PathStep>& path = e.result.critical_path;
  expect_chain(path, e.result.step_time.value());
  double transfer = 4 * 0.5e-6 + 5e-6 + 4096.0 * 4096 * 2 / 25e9;
  int pp = 0;
  for (const sim::PathStep& st : path) {
    if (st.via != sim::PathStep::Via::pp) continue;
    pp += 1;
    EXPECT_NEAR(st.alone, transfer, 1e-9);
    EXPECT_NEAR(st.start - st.handed, transfer, 1e-6 * transfer);
  }
  EXPECT_EQ(pp, 2);
  ASSERT_EQ(e.summary.critical_path.hand_overs.size(), 1u);
  EXPECT_LT(e.summary.critical_path.hand_overs[0].contention.value(), 1e-6 * transfer);
}

TEST(CriticalPath, SaysWhatOtherFlowsOnItsLinksCostAHandOver) {
  // Two DP replicas of a 2-stage pipeline on four single-GPU nodes, two per leaf, each leaf
  // with one 50 GB/s uplink (2 down ports, oversubscription 2): stage 0 is GPUs 0 and 1 on
  // leaf 0, stage 1 GPUs 2 and 3 on leaf 1. Both replicas send their activations across at
  // once, 4096 x 4096 x 2 B = 33.6 MB each, and the gradients back: each transfer shares the
  // leaf's uplink with the other replica's, so moves at 25 GB/s: 1.34 ms where it would take
  // 0.67 ms alone (plus six hops of 0.5 us either way). Each pp hand-over on the path has
  // 0.67 ms of contention; the two of them 1.34 ms.
  topo::FatTreeParams fabric = fat_tree(4, 1);
  fabric.leaf_down_ports = 2;
  fabric.oversubscription = 2;
  Evaluation e = followed(scenario(fabric, {.dp = 2, .pp = 2, .global_batch = 2}, mlp()));
  const std::vector<sim::PathStep>& path = e.result.critical_path;
  expect_chain(path, e.result.step_time.value());
  double alone = 6 * 0.5e-6 + 4096.0 * 4096 * 2 / 50e9;
  double shared = 6 * 0.5e-6 + 2 * 4096.0 * 4096 * 2 / 50e9;
  int pp = 0;
  for (const sim::PathStep& st : path) {
    if (st.via != sim::PathStep::Via::pp) continue;
    pp += 1;
    EXPECT_NEAR(st.alone, alone, 1e-9);
    EXPECT_NEAR(st.start - st.handed, shared, 1e-6 * shared);
  }
  EXPECT_EQ(pp, 2);
  const CriticalPath& sum = e.summary.critical_path;
  auto pp_sum = std::find_if(sum.hand_overs.begin(), sum.hand_overs.end(),
                             [](const auto& h) { return h.via == "pp"; });
  ASSERT_NE(pp_sum, sum.hand_overs.end());
  EXPECT_NEAR(pp_sum->contention.value(), 2 * (shared - alone), 1e-6 * shared);
}

} // namespace
} // namespace trainsim
