// A failed spine (a scenario's faults.failed, models/faults.hpp): the flows that crossed it
// move to the spines left; where those have spare cables nothing is lost, where the cables
// are shared the slowest ring runs at its busiest cable.
#include "tests/sim/step_fixtures.hpp"

#include <algorithm>

#include "sim/simulation.hpp"

namespace trainsim {
namespace {

using namespace testing;

// 8 nodes of 4 GPUs on a rail-optimized fat tree: 4 nodes per rail leaf, so 2 groups x 4
// rails = 8 leaves, each wired to all 4 spines; links without latency; dp 32 alone. The DP
// ring runs rail by rail (each GPU's NIC to the same rail's GPU of the next node), so a leaf
// sends one flow up and takes one down, and destination routing gives them spine k mod 4.
Scenario rails(std::vector<FailedPart> failed = {}) {
  topo::FatTreeParams f = fat_tree(8, 4);
  f.nvlink_latency = f.pcie_latency = f.network_latency = Seconds(0);
  f.leaf_down_ports = 4;
  f.rail_optimized = true;
  f.ecmp = "destination";
  Scenario s = scenario(f, {.dp = 32, .global_batch = 32}, mlp());
  s.faults.failed = std::move(failed);
  return s;
}

// 4 nodes of 4 GPUs, one node per leaf (4 down, 4 up ports: 4 spines), every cable built and
// picked by a hash of the pair (ecmp: pair); tp 4 x dp 4: four rings, node n's GPU k to node
// n + 1's GPU k, so each leaf sends four flows up over four cables that the hash shares
// unevenly.
Scenario hashed(std::vector<FailedPart> failed = {}) {
  topo::FatTreeParams f = fat_tree(4, 4);
  f.nvlink_latency = f.pcie_latency = f.network_latency = Seconds(0);
  f.leaf_down_ports = 4;
  f.ecmp = "pair";
  Scenario s = scenario(f, {.dp = 4, .tp = 4, .global_batch = 4}, mlp());
  s.faults.failed = std::move(failed);
  return s;
}

double dp_comm(const sim::SimResult& r, bool slowest) {
  double most = 0, sum = 0;
  for (const auto& rank : r.ranks) {
    most = std::max(most, rank[sim::Category::dp_comm].value());
    sum += rank[sim::Category::dp_comm].value();
  }
  return slowest ? most : sum / static_cast<double>(r.ranks.size());
}

double busiest_bytes(const sim::SimResult& r) {
  return *std::max_element(r.channel_bytes.begin(), r.channel_bytes.end());
}

const FailedPart kSpine0{FailedPart::Which::network_switch, "spine0"};

TEST(FailedLink, SpareCablesHideAFailedSpine) {
  // Spine 0 carried the flows of leaves 0 and 4 (rail 0). Each now takes another spine, whose
  // cables from leaf 0 and to leaf 4 carried nothing: every flow still has a cable of its
  // own, and the step is the healthy one to the solver's rounding.
  sim::SimResult healthy = simulate(rails()).result, failed = simulate(rails({kSpine0})).result;
  EXPECT_NEAR(failed.step_time.value(), healthy.step_time.value(), event_rounding(healthy));
  EXPECT_DOUBLE_EQ(busiest_bytes(failed), busiest_bytes(healthy));
}

TEST(FailedLink, TheSlowestRingRunsAtItsBusiestCable) {
  // Each ring step moves its bytes over all its hops at once, so a ring runs at its most
  // shared cable's rate, and the rings on the busiest cable (k flows, none held back more
  // elsewhere) keep it busy for the whole all-reduce: the slowest all-reduce is that cable's
  // bytes over its 50 GB/s, with spine 1 failed as on the healthy fabric. The spine's flows
  // land on cables other rings use, so more rings share one: the mean all-reduce grows.
  FailedPart spine1{FailedPart::Which::network_switch, "spine1"};
  sim::SimResult healthy = simulate(hashed()).result, failed = simulate(hashed({spine1})).result;
  for (const sim::SimResult* r : {&healthy, &failed})
    EXPECT_NEAR(dp_comm(*r, true), busiest_bytes(*r) / 50e9, 1e-6 * dp_comm(*r, true));
  EXPECT_GT(dp_comm(failed, false), dp_comm(healthy, false) * 1.05);
}

TEST(FailedLink, ASprayedSpineTakesItsShareOfEveryUplink) {
  // hashed()'s fabric with packets sprayed: a leaf's 4 uplinks are one link of 4 x 50 GB/s,
  // its 4 ring flows 50 GB/s each (their NICs' rate too). Spine 1 failing leaves 3 cables:
  // 150 GB/s for the 4 flows, 37.5 GB/s each, so the all-reduce over them takes 50 / 37.5 =
  // 4/3 as long (no latency on these links).
  auto sprayed = [](std::vector<FailedPart> failed) {
    Scenario s = hashed(std::move(failed));
    std::get<topo::FatTreeParams>(s.system.topology.params).ecmp = "spray";
    return s;
  };
  FailedPart spine1{FailedPart::Which::network_switch, "spine1"};
  sim::SimResult healthy = simulate(sprayed({})).result,
                 failed = simulate(sprayed({spine1})).result;
  EXPECT_NEAR(dp_comm(failed, true) / dp_comm(healthy, true), 4.0 / 3, 1e-6);
}

TEST(FailedLink, NoFlowCrossesAFailedLink) {
  // The link statistics agree with the routes: the failed cable carries no byte.
  Scenario s = rails({{FailedPart::Which::link, "leaf3-spine0"}});
  sim::SimResult r = simulate(s).result;
  LoadedScenario built = build_unguarded(s);
  int failed = 0;
  for (int id = 0; id < built.topology.link_count(); ++id)
    if (built.topology.link_failed(id)) {
      ++failed;
      EXPECT_EQ(r.channel_bytes[static_cast<size_t>(2 * id)], 0.0);
      EXPECT_EQ(r.channel_bytes[static_cast<size_t>(2 * id + 1)], 0.0);
    }
  EXPECT_EQ(failed, 1);
}

} // namespace
} // namespace trainsim
