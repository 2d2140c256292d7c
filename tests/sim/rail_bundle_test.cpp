// Rail bundling (sim/rail_bundle.hpp): where turning every node's GPUs one place maps the step
// onto itself, fast mode runs rail 0 for all the rails and must give the per-flow result; where
// it does not, every GPU's flows run.
#include <gtest/gtest.h>

#include "tests/sim/step_fixtures.hpp"

#include "sim/rail_bundle.hpp"

namespace trainsim {
namespace {

using namespace testing;

// 128 nodes of 8 GPUs (1,024), rail-optimized: 16 nodes per rail leaf, 2:1 oversubscribed
// (8 uplinks), radix 32: pods of 16 leaves (2 groups of 8 rails) -> 4 pods, 8 planes x 16
// cores. DP rings leave their leaf every 16 nodes and pipeline peers (64 nodes apart) cross
// pods, so the spine and core links are shared.
topo::FatTreeParams contended(double oversubscription = 2, const char* ecmp = "rail") {
  topo::FatTreeParams p = fat_tree(128);
  p.rail_optimized = true;
  p.leaf_down_ports = 16;
  p.oversubscription = oversubscription;
  p.tiers = 3;
  p.radix = 32;
  p.ecmp = ecmp;
  return p;
}

// 4 layers of d_model 4096, d_ff 16384, 2048 tokens a sequence.
ModelSpec four_layers(ModelKind kind) {
  ModelSpec m;
  m.kind = kind;
  m.layers = 4;
  m.d_model = 4096;
  m.d_ff = 16384;
  m.seq_len = 2048;
  return m;
}

// A 4-layer GPT-like transformer on the H100 preset: TP 8 (one node) x PP 2 x DP 64, 4
// microbatches of 2048 tokens, ZeRO-1: every kind of traffic, priced per operator.
Scenario step(topo::FatTreeParams fabric = contended()) {
  ModelSpec m = four_layers(ModelKind::transformer);
  m.heads = 32;
  m.vocab = 32000;
  ExecutionSpec e{.dp = 64, .tp = 8, .pp = 2, .global_batch = 256};
  e.zero = 1;
  return scenario(fabric, e, m, h100());
}

sim::SimResult run(const Scenario& s, bool bundle, sim::Fidelity f = sim::Fidelity::fast) {
  LoadedScenario loaded = build_unguarded(s);
  sim::SimOptions o{.fidelity = f, .trace_ranks = {0, 9}};
  o.bundle_rails = bundle;
  return sim::simulate(loaded.scenario, loaded.topology, o);
}

TEST(RailBundle, GivesThePerFlowResultOnAContendedFabric) {
  sim::SimResult bundled = run(step(), true), flows = run(step(), false);
  EXPECT_EQ(bundled.rail_bundle, 8);
  EXPECT_EQ(flows.rail_bundle, 1);
  // Rail 0 stands for every rail: the same step, every rank's breakdown, every link's bytes,
  // the traced ranks' events (rank 9 is GPU 1 of node 1: its node's GPU 0's, turned), with an
  // eighth of the SimGrid activities or fewer.
  expect_same_step(bundled, flows);
  ASSERT_EQ(bundled.trace.size(), flows.trace.size());
  EXPECT_LE(bundled.counters.activities() * 8, flows.counters.activities());
  // The fabric is contended: on a 1:1 one the step is shorter.
  EXPECT_LT(run(step(contended(1)), true).step_time, bundled.step_time);
}

TEST(RailBundle, DestinationRoutingBundlesToo) {
  // ecmp: destination is rail-symmetric as well (tests/topologies/rail_ecmp_test.cpp): rail 0
  // stands for every rail on the same contended fabric.
  Scenario s = step(contended(2, "destination"));
  sim::SimResult bundled = run(s, true), flows = run(s, false);
  EXPECT_EQ(bundled.rail_bundle, 8);
  expect_same_step(bundled, flows);
}

TEST(RailBundle, TheOverlappedTpStreamGivesThePerFlowResult) {
  // tp_overlap: bundled, the TP stream's splits take their time alone one after another; per
  // flow, helper actors run their rings over the node's NVLink, which nothing else uses. The
  // same step and breakdowns, and the same trace events.
  Scenario s = step();
  s.execution.tp_overlap = true;
  sim::SimResult bundled = run(s, true), flows = run(s, false);
  EXPECT_EQ(bundled.rail_bundle, 8);
  expect_same_ranks(bundled, flows);
  EXPECT_EQ(bundled.trace.size(), flows.trace.size());
  EXPECT_LT(bundled.step_time, run(step(), true).step_time); // the overlap hides something
}

TEST(RailBundle, DirectTpCollectivesGiveThePerFlowResult) {
  // tp_collective: direct: bundled, the node's collectives take their time alone
  // (direct_alone); per flow, every GPU sends to each of its 7 peers at once over NVLink. The
  // same step, breakdowns and channel bytes, with and without the TP overlap.
  for (bool overlap : {false, true}) {
    Scenario s = step();
    s.execution.tp_collective = "direct";
    s.execution.tp_overlap = overlap;
    sim::SimResult bundled = run(s, true), flows = run(s, false);
    EXPECT_EQ(bundled.rail_bundle, 8);
    expect_same_step(bundled, flows);
  }
}

TEST(RailBundle, DirectTpCollectivesUnderFatPipesGiveThePerFlowResult) {
  // With every link a fat pipe (validate's measure of fast mode's own error), each of a GPU's
  // 7 direct sends takes its NVLink's whole bandwidth, per flow and bundled alike
  // (direct_alone() under SimOptions::shared_links false); with links shared they take turns.
  topo::FatTreeParams fabric = fat_tree(4);
  fabric.rail_optimized = true;
  ModelSpec m = four_layers(ModelKind::transformer);
  m.heads = 32;
  ExecutionSpec e{.dp = 4, .tp = 8, .pp = 1, .global_batch = 8};
  e.tp_collective = "direct";
  Scenario s = scenario(fabric, e, m, h100());
  auto step_with = [&](bool bundle, bool shared) {
    LoadedScenario loaded = build_unguarded(s);
    sim::SimOptions o{.fidelity = sim::Fidelity::fast};
    o.bundle_rails = bundle, o.shared_links = shared;
    return sim::simulate(loaded.scenario, loaded.topology, o);
  };
  sim::SimResult bundled = step_with(true, false), flows = step_with(false, false);
  EXPECT_EQ(bundled.rail_bundle, 8);
  expect_same_ranks(bundled, flows);
  EXPECT_LT(bundled.step_time, step_with(true, true).step_time);
}

TEST(RailBundle, PatAcrossNodesGivesThePerFlowResult) {
  // 2-D TP on MLP blocks, the node one group of the second axis (tp_2d 8) and the first axis
  // (tp 4) one member on each of four nodes: bundled, the node's collectives are rings at
  // their time alone (PAT inside a node) and rail 0's first-axis groups run PAT's steps as
  // flows; per flow, every rail's do. The same step and breakdowns.
  ModelSpec m = four_layers(ModelKind::mlp);
  ExecutionSpec e{.dp = 16, .tp = 4, .pp = 2, .global_batch = 128};
  e.tp_2d = 8;
  e.zero = 1;
  e.tp_collective = "pat";
  e.tp_overlap = e.sequence_parallel = true;
  Scenario s = scenario(contended(), e, m, h100());
  sim::SimResult bundled = run(s, true), flows = run(s, false);
  EXPECT_EQ(bundled.rail_bundle, 8);
  // The first axis's flows meet the DP rings on the leaves in another order in the two runs,
  // and SimGrid's solver rounds each settling: measured 1.4 ns on the 6.6 ms step (0.18 ns
  // with rings) and 12 ns on a rank's category. A flow more or less would be microseconds.
  // Since fast mode folds an overlapped pass into one layer's blocks (each op scaled), one
  // node's GPUs (368-375) reach a pipeline receive and a TP stream wait at the same instant in
  // one run and in the other order in the other: 2.0 us of their wait moves between pp_comm
  // and tp_comm, whose sum stays the same. Since fast mode keeps the order of the passes whose
  // collectives leave the node (the first axis's here), each pass is one event per kernel and
  // collective, and the DP rings meet the first axis's flows at more instants: up to 0.22 us
  // of a rank's dp_comm (3.2e-5 of the step) and 0.12 us of its tp_comm + pp_comm differ,
  // still far under one flow: both held to 1e-4 of the step.
  double step = flows.step_time.value();
  EXPECT_NEAR(bundled.step_time.value(), step, 1e-6 * step);
  ASSERT_EQ(bundled.ranks.size(), flows.ranks.size());
  using sim::Category;
  for (size_t r = 0; r < flows.ranks.size(); ++r) {
    const sim::RankStats &b = bundled.ranks[r], &f = flows.ranks[r];
    for (Category c : sim::kCategories) {
      bool traded = c == Category::tp_comm || c == Category::pp_comm;
      ASSERT_NEAR(b[c].value(), f[c].value(), (traded ? 5e-4 : 1e-4) * step)
          << "rank " << r << " " << sim::name(c);
    }
    ASSERT_NEAR((b[Category::tp_comm] + b[Category::pp_comm]).value(),
                (f[Category::tp_comm] + f[Category::pp_comm]).value(), 1e-4 * step)
        << "rank " << r;
  }
}

TEST(RailBundle, AgreesWithFineModeWithinHalfAPercent) {
  // Fine mode runs every algorithm step of every GPU's collectives as its own flows.
  double fine = run(step(), false, sim::Fidelity::fine).step_time.value();
  EXPECT_NEAR(run(step(), true).step_time.value(), fine, 0.005 * fine);
}

TEST(RailBundle, TheScenarioAndItsBuiltFabricDecideAlike) {
  // The memory guard and validate ask sim::rail_bundle(scenario) before the graph exists; the
  // simulator asks with the built fabric. Rail ECMP and destination routing turn with the
  // rails across all 4 pods; sprayed, a pod's one spine-core link carries every rail, so only
  // a fabric of one pod bundles (radix 128: 64 leaves a pod, all 64 in one); pair hashing
  // never does.
  sim::SimOptions fast;
  auto both = [&](const Scenario& s) {
    LoadedScenario l = build_unguarded(s);
    return std::pair{sim::rail_bundle(s), sim::rail_bundle(l.scenario, l.topology, fast)};
  };
  EXPECT_EQ(both(step(contended(2, "rail"))), std::pair(8, 8));
  EXPECT_EQ(both(step(contended(2, "destination"))), std::pair(8, 8));
  EXPECT_EQ(both(step(contended(2, "spray"))), std::pair(1, 1));
  EXPECT_EQ(both(step(contended(2, "pair"))), std::pair(1, 1));
  topo::FatTreeParams one_pod = contended(2, "spray");
  one_pod.radix = 128;
  EXPECT_EQ(both(step(one_pod)), std::pair(8, 8));
}

TEST(RailBundle, EveryGpuRunsItsOwnFlowsWhereTheStepIsNotSymmetric) {
  sim::SimOptions fast;
  auto rails = [&](const Scenario& s) {
    LoadedScenario l = build_unguarded(s);
    return sim::rail_bundle(l.scenario, l.topology, fast);
  };
  EXPECT_EQ(rails(step()), 8);
  EXPECT_EQ(rails(step(contended(2, "pair"))), 1); // each GPU pair hashes its own plane
  Scenario half = step();
  half.execution.tp = 4, half.execution.dp = 128; // two TP groups per node
  EXPECT_EQ(rails(half), 1);
  Scenario tree = step();
  tree.execution.tp_collective = "tree";
  EXPECT_EQ(rails(tree), 1);
  fast.fidelity = sim::Fidelity::fine;
  EXPECT_EQ(rails(step()), 1);
  fast = {};
  fast.bundle_rails = false;
  EXPECT_EQ(rails(step()), 1);
}


// A degraded link of one rail (sim/rail_bundle.hpp: RailBundle) breaks the turn for that rail
// alone: its GPUs run their own flows over their own links, the other rails stay bundled.

DegradedLinks slower(DegradedLinks::Which which, double factor) {
  DegradedLinks l;
  l.which = which, l.factor = factor;
  return l;
}

DegradedLinks slower_link(const char* name, double factor = 0.25) {
  DegradedLinks l = slower(DegradedLinks::Which::link, factor);
  l.link = name;
  return l;
}

// The contended fabric's leaves and planes in one pod (radix 128: 64 leaves a pod, all 64 in
// one): no core, so the rails share no link.
topo::FatTreeParams one_pod() {
  topo::FatTreeParams p = contended();
  p.radix = 128;
  return p;
}

Scenario with_faults(std::vector<DegradedLinks> links, topo::FatTreeParams fabric = contended()) {
  Scenario s = step(fabric);
  s.faults.degraded_links = std::move(links);
  return s;
}

sim::RailBundle bundle_of(const Scenario& s) {
  LoadedScenario l = build_unguarded(s);
  return sim::rail_bundle_of(l.scenario, l.topology, sim::SimOptions{});
}

TEST(PartialRailBundle, OnlyTheRailsWithADegradedLinkRunOnTheirOwn) {
  // Rank 3's NIC is rail 3's; rank 9 is GPU 1 of node 1 (rail 1); leaf 0 serves rail 0 of
  // nodes 0-15, so its uplinks are rail 0's alone. The leader is the first healthy rail.
  DegradedLinks nic3 = slower(DegradedLinks::Which::nic, 0.5), nic9 = nic3;
  nic3.rank = 3, nic9.rank = 9;
  sim::RailBundle one = bundle_of(with_faults({nic3}));
  EXPECT_EQ(one.rails, 8);
  EXPECT_EQ(one.own, std::vector<int>{3});
  EXPECT_EQ(one.leader, 0);
  sim::RailBundle two = bundle_of(with_faults({slower_link("leaf0-spine0"), nic9}));
  EXPECT_EQ(two.own, (std::vector<int>{0, 1}));
  EXPECT_EQ(two.leader, 2);
  EXPECT_EQ(two.actors_per_node(), 3);
  // A whole tier at 3/4 keeps every orbit alike: all bundled, none on its own.
  DegradedLinks spines = slower(DegradedLinks::Which::tier, 0.75);
  spines.tier = "spine";
  EXPECT_EQ(bundle_of(with_faults({spines})).own, std::vector<int>{});
  EXPECT_EQ(bundle_of(with_faults({spines})).rails, 8);
  // A spine-core link carries every rail's flows, and a GPU's NVLink every TP collective of its
  // node: every rail runs its own flows.
  EXPECT_EQ(bundle_of(with_faults({slower_link("spine0-core0")})).rails, 1);
  EXPECT_EQ(bundle_of(with_faults({slower_link("gpu3-nvswitch0")})).rails, 1);
}

TEST(PartialRailBundle, GivesThePerFlowResultWhereTheRailsShareNoLink) {
  // Leaf 0's first uplink at a quarter of its rate, on one pod 2:1 oversubscribed: rail 0's DP
  // rings and pipeline sends that leave leaf 0 over it take longer, and the node's other GPUs
  // wait for rail 0's at every TP collective. Rail 1's GPUs run for rails 1-7 and rail 0's on
  // their own: the same step, every rank's breakdown, every link's bytes and the traced events
  // (rank 0 on rail 0, rank 9 stood for by rank 8) as every GPU's own flows, with a quarter of
  // the activities or fewer.
  Scenario s = with_faults({slower_link("leaf0-spine0")}, one_pod());
  sim::SimResult bundled = run(s, true), flows = run(s, false);
  EXPECT_EQ(bundled.rail_bundle, 8);
  EXPECT_EQ(bundled.own_rails, std::vector<int>{0});
  EXPECT_EQ(bundled.rail_leader, 1);
  expect_same_step(bundled, flows);
  ASSERT_EQ(bundled.trace.size(), flows.trace.size());
  EXPECT_LE(bundled.counters.activities() * 4, flows.counters.activities());
  EXPECT_GT(bundled.step_time, run(step(one_pod()), true).step_time); // the fault costs
}

TEST(PartialRailBundle, AFailedLinkOfOneRailGivesThePerFlowResult) {
  // Leaf 0's first uplink failed on the same pod: rail 0's flows that crossed it detour over
  // leaf 0's 7 other uplinks, all rail 0's own links, and the other rails' routes are the
  // healthy ones. Rail 0 runs on its own, rail 1 for the rest: the per-flow result.
  Scenario s = step(one_pod());
  s.faults.failed.push_back({FailedPart::Which::link, "leaf0-spine0"});
  sim::SimResult bundled = run(s, true), flows = run(s, false);
  EXPECT_EQ(bundled.rail_bundle, 8);
  EXPECT_EQ(bundled.own_rails, std::vector<int>{0});
  expect_same_step(bundled, flows);
  EXPECT_LE(bundled.counters.activities() * 4, flows.counters.activities());
  // The failed cable carries nothing now, and it did carry rail 0's flows before.
  LoadedScenario built = build_unguarded(s);
  int failed = -1;
  for (int id = 0; id < built.topology.link_count(); ++id)
    if (built.topology.link_failed(id)) failed = id;
  ASSERT_GE(failed, 0);
  auto channel = 2 * static_cast<size_t>(failed);
  EXPECT_EQ(bundled.channel_bytes[channel] + bundled.channel_bytes[channel + 1], 0.0);
  sim::SimResult healthy = run(step(one_pod()), true);
  EXPECT_GT(healthy.channel_bytes[channel] + healthy.channel_bytes[channel + 1], 0.0);
  // A failed spine-core link detours every rail's flows: none stays bundled.
  Scenario core = step(contended());
  core.faults.failed.push_back({FailedPart::Which::link, "spine0-core0"});
  EXPECT_EQ(bundle_of(core).rails, 1);
}

TEST(PartialRailBundle, TheOverlappedTpStreamMeetsTheOwnRails) {
  // tp_overlap: the TP stream's splits run on a worker whose k-th split meets the own rail's
  // k-th before taking its time alone, as every member's ring waits for the last to start.
  Scenario s = with_faults({slower_link("leaf0-spine0")}, one_pod());
  s.execution.tp_overlap = true;
  sim::SimResult bundled = run(s, true), flows = run(s, false);
  EXPECT_EQ(bundled.own_rails, std::vector<int>{0});
  expect_same_ranks(bundled, flows);
  EXPECT_EQ(bundled.trace.size(), flows.trace.size());
}

TEST(PartialRailBundle, StaysCloseWhereTheRailsShareTheCoreLinks) {
  // On 4 pods the rails' cross-pod flows share the spine-core links. There rail 0's flows meet
  // a copy of the orbit links that only they use, and the leader's the healthy rails': each as
  // if every rail ran as it does. Against every GPU's own flows (measured): the same step and
  // link bytes; 4 of the 1,024 GPUs (rails 0 and 3 of nodes 25 and 27, whose pipeline
  // receives cross a core link with rail 0's slow flows) move 0.73 ms (2.5% of the 28.7 ms
  // step) of their wait between pp_comm and tp_comm, and 4 others 48 us (0.17%) between
  // dp_comm and those. Held to 3% and 0.3% of the step; each rank's sum of the three, and
  // the other categories, to the solver's rounding.
  Scenario s = with_faults({slower_link("leaf0-spine0")});
  sim::SimResult bundled = run(s, true), flows = run(s, false);
  double step = flows.step_time.value();
  EXPECT_NEAR(bundled.step_time.value(), step, 1e-8 * step);
  using sim::Category;
  for (size_t r = 0; r < flows.ranks.size(); ++r) {
    const sim::RankStats &b = bundled.ranks[r], &f = flows.ranks[r];
    for (Category c : sim::kCategories) {
      double within = c == Category::tp_comm || c == Category::pp_comm ? 0.03
                      : c == Category::dp_comm                         ? 0.003
                                                                       : 1e-6;
      ASSERT_NEAR(b[c].value(), f[c].value(), within * step) << r << " " << sim::name(c);
    }
    auto waits = [](const sim::RankStats& x) {
      return (x[Category::tp_comm] + x[Category::pp_comm] + x[Category::dp_comm]).value();
    };
    ASSERT_NEAR(waits(b), waits(f), 1e-6 * step) << r;
  }
  for (size_t c = 0; c < flows.channel_bytes.size(); ++c)
    ASSERT_NEAR(bundled.channel_bytes[c], flows.channel_bytes[c], 1e-6 * flows.channel_bytes[c]);
}

} // namespace
} // namespace trainsim
