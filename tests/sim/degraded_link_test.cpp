// A degraded link (a scenario's faults, models/faults.hpp) slows every flow that crosses it:
// at half its bandwidth a transfer over it takes twice as long, and extra latency adds once per
// message.
#include "tests/sim/step_fixtures.hpp"

#include "models/closed_form.hpp"
#include "sim/simulation.hpp"
#include "tools/study/fabric_summary.hpp"

namespace trainsim {
namespace {

using namespace testing;

// Two single-GPU nodes on one leaf, links without latency (so a transfer is its bytes over the
// slowest link: the NIC's 50 GB/s, below PCIe's 64), dp 2, the paper's MLP blocks: each GPU
// runs its kernels, then the two-member ring all-reduces the gradients, two steps of n / 2
// bytes each way: n / B.
Scenario pair(std::vector<DegradedLinks> links = {}) {
  topo::FatTreeParams f = fat_tree(2, 1);
  f.nvlink_latency = f.pcie_latency = f.network_latency = Seconds(0);
  Scenario s = scenario(f, {.dp = 2, .global_batch = 2}, mlp());
  s.faults.degraded_links = std::move(links);
  return s;
}

DegradedLinks degraded(DegradedLinks::Which which, double factor, Seconds extra = Seconds()) {
  DegradedLinks l;
  l.which = which, l.factor = factor, l.extra_latency = extra;
  return l;
}

double dp_comm(const Scenario& s, int rank) {
  return simulate(s).result.ranks[static_cast<size_t>(rank)][sim::Category::dp_comm].value();
}

TEST(DegradedLink, HalfTheBandwidthDoublesTheTransfersOverIt) {
  // Rank 0's NIC link carries both directions of every step, so the whole all-reduce runs at
  // 25 GB/s: 2n / B against n / B.
  double healthy = dp_comm(pair(), 1);
  ASSERT_GT(healthy, 0.0);
  DegradedLinks nic0 = degraded(DegradedLinks::Which::nic, 0.5);
  nic0.rank = 0;
  double slow = dp_comm(pair({nic0}), 1);
  EXPECT_NEAR(slow, 2 * healthy, 1e-6 * healthy);
}

TEST(DegradedLink, ExtraLatencyAddsOncePerMessage) {
  // 5 us more on the leaf tier (both NIC links): each of the ring's two steps crosses two
  // leaf links, so each step takes 10 us longer and the all-reduce 20 us.
  double healthy = dp_comm(pair(), 0);
  DegradedLinks leaves = degraded(DegradedLinks::Which::tier, 1.0, Seconds(5e-6));
  leaves.tier = "leaf";
  double late = dp_comm(pair({leaves}), 0);
  EXPECT_NEAR(late - healthy, 20e-6, 1e-9);
}

TEST(DegradedLink, TheBoundSeesTheLinkAndStaysBelow) {
  DegradedLinks one = degraded(DegradedLinks::Which::link, 0.25);
  one.link = "nic1-leaf0";
  Scenario s = pair({one});
  LoadedScenario loaded = build_unguarded(s);
  double bound =
      closed_form_bound(loaded.scenario, fabric_summary(loaded.topology, loaded.scenario.execution))
          .step_time.value();
  double healthy_bound = closed_form_bound(build_unguarded(pair()).scenario,
                                           fabric_summary(build_unguarded(pair()).topology,
                                                          pair().execution))
                             .step_time.value();
  EXPECT_GT(bound, healthy_bound);
  EXPECT_GE(simulate(s).result.step_time.value(), bound * (1 - 1e-9));
}

TEST(DegradedLink, LeavesTheScenariosRailsBundled) {
  // Eight-GPU nodes, tp 8: a degraded or failed link leaves the scenario's rails bundled; the
  // built fabric then says which rails run on their own, or that none can stay bundled
  // (tests/sim/rail_bundle_test.cpp).
  topo::FatTreeParams rails = fat_tree(2);
  rails.rail_optimized = true;
  Scenario s = scenario(rails, {.dp = 2, .tp = 8, .global_batch = 2}, mlp());
  EXPECT_EQ(sim::rail_bundle(s), 8);
  DegradedLinks nic3 = degraded(DegradedLinks::Which::nic, 0.5);
  nic3.rank = 3;
  s.faults.degraded_links.push_back(nic3);
  EXPECT_EQ(sim::rail_bundle(s), 8);
  FailedPart leaf;
  leaf.which = FailedPart::Which::network_switch;
  leaf.name = "leaf0";
  s.faults.failed.push_back(leaf);
  EXPECT_EQ(sim::rail_bundle(s), 8);
}

} // namespace
} // namespace trainsim
