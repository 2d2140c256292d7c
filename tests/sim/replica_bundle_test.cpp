// Replica bundling (sim/replica_bundle.hpp): on a non-blocking fabric that sprays every flow over
// all uplinks, DP replica 0 runs the step for all replicas, its DP rings sending to the next
// node of their own TP block, and must give the unbundled result where the bundled rings' flows
// see the links the real ones do; where the step does not allow it, --bundle-replicas is refused.
#include <gtest/gtest.h>

#include "models/error.hpp"
#include "sim/replica_bundle.hpp"
#include "tests/sim/step_fixtures.hpp"

namespace trainsim {
namespace {

using namespace testing;

// 16 nodes of 8 GPUs, rail-optimized, non-blocking, spraying: 32 nodes a rail leaf, so every
// flow, bundled or not, crosses one leaf (NIC, leaf, NIC) and pays the same latency.
topo::FatTreeParams one_leaf(const char* ecmp = "spray", double oversubscription = 1) {
  topo::FatTreeParams p = fat_tree(16);
  p.rail_optimized = true;
  p.ecmp = ecmp;
  p.oversubscription = oversubscription;
  return p;
}

// 2-D TP on MLP blocks: the node one group of the second axis (tp_2d 8), the first axis's two
// members on two nodes (PAT across them), so a TP block is two nodes; DP 4 x PP 2, 8
// microbatches, ZeRO-1: 4 replicas of 4 nodes.
Scenario two_d(topo::FatTreeParams fabric = one_leaf()) {
  ExecutionSpec e{.dp = 4, .tp = 2, .pp = 2, .global_batch = 32};
  e.tp_2d = 8;
  e.zero = 1;
  e.tp_collective = "pat";
  e.tp_overlap = e.sequence_parallel = true;
  return scenario(fabric, e, mlp(4), h100());
}

sim::SimResult run(const Scenario& s, bool bundle) {
  LoadedScenario loaded = build_unguarded(s);
  sim::SimOptions o{.trace_ranks = {0, 40}};
  o.bundle_replicas = bundle;
  return sim::simulate(loaded.scenario, loaded.topology, o);
}

TEST(ReplicaBundle, PartnersAreTheSameRailOnTheNextNodeOfTheBlock) {
  // Blocks of tp x tp_2d = 16 ranks on nodes of 8: rank 3 (block 0, node 0) -> 11 (node 1)
  // -> 3 again; rank 19 (block 1, local 3) -> 27.
  ExecutionSpec e{.dp = 4, .tp = 2};
  e.tp_2d = 8;
  EXPECT_EQ(sim::bundle_partner(e, 3, 8), 11);
  EXPECT_EQ(sim::bundle_partner(e, 11, 8), 3);
  EXPECT_EQ(sim::bundle_partner(e, 19, 8), 27);
}

TEST(ReplicaBundle, GivesTheUnbundledStepWhereEveryFlowCrossesOneLeaf) {
  // With the DP reduction after the last backward (its time in dp_comm) and beside the whole
  // step (delayed update): replica 0 stands for the 4 replicas, every rank's breakdown is its
  // image's, rank 40 (TP place 40 % 16 = 8 of replica 40 / 16 = 2, stage 0; its image is rank
  // 8) keeps its events, with a quarter of the activities or fewer.
  for (bool delayed : {false, true}) {
    Scenario s = two_d();
    s.execution.delayed_update = delayed;
    sim::SimResult bundled = run(s, true), all = run(s, false);
    EXPECT_EQ(bundled.replica_bundle, 4);
    EXPECT_EQ(all.replica_bundle, 1);
    expect_same_ranks(bundled, all); // link statistics are replica 0's alone
    ASSERT_EQ(bundled.trace.size(), all.trace.size());
    EXPECT_LE(bundled.counters.activities() * 4, all.counters.activities());
    if (!delayed) {
      EXPECT_GT(all.ranks[0][sim::Category::dp_comm], Seconds(0));
    }
  }
}

TEST(ReplicaBundle, ABundledGpuRunsAtItsSlowestImagesPace) {
  // GPUs of unequal speed (the H100 preset's spread, on a per-operator transformer): TP 16
  // across two nodes x DP 4 x PP 2. Unbundled, the step meets the slowest of the 128 GPUs,
  // wherever it sits; bundled, each of replica 0's GPUs runs at the slowest of its 4 images, so
  // the bundled step is at least the unbundled one, and within the spread of it (the slowest
  // GPU's kernels take 1 / (1 - 0.0176 x 2.66) = 1.049 x the preset's time at its quantile
  // 127.5 / 128, so a whole step cannot differ by more).
  Scenario s = two_d();
  s.model.kind = ModelKind::transformer;
  s.model.heads = 32;
  s.model.vocab = 32000;
  s.system.gpu = h100_preset();
  s.execution.tp = 16, s.execution.tp_2d = 1, s.execution.tp_collective = "ring";
  s.execution.tp_overlap = s.execution.sequence_parallel = false;
  sim::SimResult bundled = run(s, true), all = run(s, false);
  EXPECT_GE(bundled.step_time.value(), all.step_time.value() * (1 - 1e-9));
  EXPECT_LE(bundled.step_time.value(), all.step_time.value() * 1.049);
  // With replica 0's own speeds the bundled step would be the shorter: its slowest GPU is not
  // the slowest of the 128 (measured by a build without the images, which fails the first
  // expectation).
}

TEST(ReplicaBundle, OneReplicaHasNothingToBundle) {
  Scenario s = two_d();
  s.execution.dp = 1, s.execution.global_batch = 8;
  s.system.topology.params = fat_tree(4);
  LoadedScenario loaded = build_unguarded(s);
  sim::SimOptions o;
  o.bundle_replicas = true;
  EXPECT_EQ(sim::replica_bundle(loaded.scenario, loaded.topology, o), 1);
}

// The first line of the refusal of `s` under --bundle-replicas (fast mode unless `fine`).
std::string refusal(const Scenario& s, bool fine = false) {
  LoadedScenario loaded = build_unguarded(s);
  sim::SimOptions o;
  o.bundle_replicas = true;
  if (fine) o.fidelity = sim::Fidelity::fine;
  try {
    sim::replica_bundle(loaded.scenario, loaded.topology, o);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::input);
    return e.what();
  }
  return "accepted";
}

TEST(ReplicaBundle, IsRefusedWhereOneReplicaCannotStandForAll) {
  EXPECT_EQ(refusal(two_d()), "accepted");
  EXPECT_EQ(refusal(two_d(), true),
            "--bundle-replicas: fast mode only (fine mode runs every replica)");
  Scenario tree = two_d();
  tree.execution.dp_collective = "tree";
  tree.execution.zero = 0; // a tree has no reduce-scatter
  EXPECT_EQ(refusal(tree), "--bundle-replicas: needs dp_collective: ring (here tree): a bundled "
                           "group keeps only the ring's neighbours");
  Scenario cp = two_d(); // context parallelism needs attention: a 1-D TP block of two nodes
  cp.model.kind = ModelKind::transformer;
  cp.model.heads = 32;
  cp.model.vocab = 32000;
  cp.execution.tp = 16, cp.execution.tp_2d = 1, cp.execution.tp_collective = "ring";
  cp.execution.cp = 2, cp.execution.dp = 2;
  EXPECT_EQ(refusal(cp), "--bundle-replicas: needs cp 1 and ep 1 (here cp 2, ep 1): their groups "
                         "span the replicas");
  // Experts folded over TP x DP (etp 1, ep 1: every rank holds them whole): the expert
  // gradients reduce over all of a stage's ranks, every replica's.
  Scenario folded = cp;
  folded.execution.cp = 1, folded.execution.dp = 4;
  folded.model.experts = 4, folded.model.top_k = 2;
  folded.execution.etp = 1, folded.execution.sequence_parallel = true;
  EXPECT_EQ(refusal(folded), "--bundle-replicas: needs experts split as TP is (here etp 1, tp 16): "
                             "folded expert groups span the replicas");
  Scenario node = two_d();
  node.execution.tp = 1, node.execution.dp = 8; // a block of one node
  node.execution.tp_collective = "ring";
  node.execution.sequence_parallel = false; // it splits over tp, here 1
  EXPECT_EQ(refusal(node), "--bundle-replicas: needs a TP block of whole nodes, at least two (here "
                           "tp x tp_2d = 8 on nodes of 8 GPUs): a DP ring's next replica maps "
                           "onto the next node of the block");
  std::string fabric = "--bundle-replicas: needs a non-blocking fat tree with ecmp: spray, where no "
                       "link beyond a node's own is tighter than its NICs";
  EXPECT_EQ(refusal(two_d(one_leaf("rail"))), fabric);
  EXPECT_EQ(refusal(two_d(one_leaf("spray", 2))), fabric);
}

} // namespace
} // namespace trainsim
