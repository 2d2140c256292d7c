// Expert parallelism and rings that mix tiers: fine mode runs what fast mode runs, the two
// agree where no link is shared, and neither falls below the closed-form bound, which prices
// each group at the tier its members cross (models/fabric.hpp).
#include "tests/sim/step_fixtures.hpp"

#include "models/closed_form.hpp"
#include "models/collective_cost.hpp"
#include "tools/study/fabric_summary.hpp"

namespace trainsim {
namespace {

using namespace testing;

struct Modes {
  double fast = 0, fine = 0, bound = 0;
};

Modes both_modes(const Scenario& s) {
  LoadedScenario loaded = build_unguarded(s);
  sim::SimOptions fast{sim::Fidelity::fast, false, false, {}},
      fine{sim::Fidelity::fine, false, false, {}};
  Modes r;
  r.fast = sim::simulate(loaded.scenario, loaded.topology, fast).step_time.value();
  r.fine = sim::simulate(loaded.scenario, loaded.topology, fine).step_time.value();
  r.bound =
      closed_form_bound(loaded.scenario, fabric_summary(loaded.topology, loaded.scenario.execution))
          .step_time.value();
  return r;
}

// Transformers (the default kind) with experts, on the H100 SXM preset: these tests compare
// the modes and the bound with one another, so the GPU's figures need not be round numbers.
Scenario moe(const ModelSpec& model, const topo::FatTreeParams& topology,
             const ExecutionSpec& execution) {
  return scenario(topology, execution, model, h100());
}

Scenario sixteen_way(int top_k, const ExecutionSpec& extra = {}) {
  return sixteen_way_experts(top_k, extra);
}

// 2 nodes of 8 on one leaf: a crossbar, every GPU with its own NVLink port and NIC.
const topo::FatTreeParams kCrossbar{.nodes = 2, .gpus_per_node = 8, .leaf_down_ports = 64};

ModelSpec crossbar_model(int experts) {
  return {.layers = 2,
          .d_model = 2048,
          .d_ff = 8192,
          .heads = 16,
          .seq_len = 2048,
          .experts = experts,
          .top_k = 2};
}

TEST(Experts, FineModeRunsSixteenWayExpertParallelism) {
  // Fine mode deadlocked here: a pairwise receive took whichever round's message came first.
  // 16 GPUs on 2 nodes: the rounds cross nodes, and the DP ring has 14 NVLink pairs and 2
  // network ones, so ranks wait for one another differently in the two modes (within 3%).
  Modes r = both_modes(sixteen_way(2));
  EXPECT_NEAR(r.fast, r.fine, 0.03 * r.fine);
  EXPECT_GE(r.fast, r.bound * (1 - 1e-9));
  EXPECT_GE(r.fine, r.bound * (1 - 1e-9));
}

TEST(Experts, FineModeRunsAMixtralLikeJob) {
  // 8 experts, top-2, 256 GPUs on a 2-tier fat-tree, tp 4, ep 8: the job of issue 12 that
  // deadlocked. Its DP rings share spine links, which the two modes resolve differently.
  ModelSpec model{.layers = 2,
                  .d_model = 4096,
                  .d_ff = 14336,
                  .heads = 32,
                  .seq_len = 4096,
                  .experts = 8,
                  .top_k = 2,
                  .gated_mlp = true};
  Modes r = both_modes(moe(model, {.nodes = 32, .gpus_per_node = 8},
                           {.dp = 64, .tp = 4, .ep = 8, .global_batch = 64}));
  EXPECT_GT(r.fine, 0.0);
  EXPECT_GE(r.fast, r.bound * (1 - 1e-9));
  EXPECT_GE(r.fine, r.bound * (1 - 1e-9));
}

TEST(Experts, FastAndFineAgreeOnExpertsWithTensorParallelismWhereNoLinkIsShared) {
  // 2 nodes on one leaf (a crossbar: every GPU has its own NVLink port and NIC), tp 4, dp 4,
  // ep 4: each EP group has two members per node, so every all-to-all round crosses the
  // network, one flow per GPU per round; the DP ring is the EP group's ranks. No link carries
  // two flows at once, so the modes agree, and both meet the bound, which prices every round
  // at the NIC (the old bound took NVLink here, as tp did not fill the node).
  Modes r =
      both_modes(moe(crossbar_model(8), kCrossbar, {.dp = 4, .tp = 4, .ep = 4, .global_batch = 4}));
  EXPECT_NEAR(r.fast, r.fine, 0.01 * r.fine);
  EXPECT_NEAR(r.fast, r.bound, 0.01 * r.bound);
  EXPECT_GE(r.fast, r.bound * (1 - 1e-9));
}

TEST(Experts, FoldedExpertsAcrossNodesRunInBothModesAboveTheBound) {
  // The crossbar job above with etp 1: tp 4 x dp 4 = 16 ranks, one EP group of all 16 over
  // both nodes (each rank one whole expert of 16), the TP ranks' sequence shards sent straight
  // to the experts. Each all-to-all round is a shift over the 16 ranks, 8 of whose pairs cross
  // the network; no link carries two flows of a round, so the modes agree.
  ExecutionSpec e{.dp = 4, .tp = 4, .ep = 16, .global_batch = 4};
  e.etp = 1, e.sequence_parallel = true;
  Modes r = both_modes(moe(crossbar_model(16), kCrossbar, e));
  EXPECT_NEAR(r.fast, r.fine, 0.02 * r.fine);
  EXPECT_GE(r.fast, r.bound * (1 - 1e-9));
  EXPECT_GE(r.fine, r.bound * (1 - 1e-9));
  // Uneven routing (the busiest rank takes 1.3 x its share) and DeepEP's exchange on the
  // folded groups: the bound prices the balanced share, or DeepEP's bytes, and stays below
  // both modes.
  for (const char* variant : {"imbalance", "deepep"}) {
    ExecutionSpec v = e;
    if (std::string(variant) == "imbalance")
      v.moe_imbalance = 0.3;
    else
      v.ep_collective = "deepep";
    Modes m = both_modes(moe(crossbar_model(16), kCrossbar, v));
    EXPECT_GE(m.fast, m.bound * (1 - 1e-6)) << variant;
    EXPECT_GE(m.fine, m.bound * (1 - 1e-6)) << variant;
  }
}

TEST(Experts, ExpertsSplitOverPartOfTpRunInBothModesAboveTheBound) {
  // The crossbar job with etp 2 under tp 4: tp 4 x dp 4 = 16 ranks a stage, ETP groups of 2
  // consecutive ranks inside a node (half a TP group), EP 8 of every other rank over both
  // nodes, each rank half of 2 experts of 16. Each ETP pair gathers its ranks' tokens over
  // NVLink around the experts, counted as tp_comm; nothing shares a link in an exchange's
  // round, so the modes agree, both above the bound.
  ExecutionSpec e{.dp = 4, .tp = 4, .ep = 8, .global_batch = 4};
  e.etp = 2, e.sequence_parallel = true;
  Modes r = both_modes(moe(crossbar_model(16), kCrossbar, e));
  EXPECT_NEAR(r.fast, r.fine, 0.02 * r.fine);
  EXPECT_GE(r.fast, r.bound * (1 - 1e-9));
  EXPECT_GE(r.fine, r.bound * (1 - 1e-9));
  // etp 1 sends the same shards over EP 16 and gathers nothing: the ETP pair's gathers and
  // reduce-scatters are tp_comm that etp 1 does not have.
  ExecutionSpec whole = e;
  whole.etp = 1, whole.ep = 16;
  Outcome split = simulate(moe(crossbar_model(16), kCrossbar, e));
  Outcome folded = simulate(moe(crossbar_model(16), kCrossbar, whole));
  EXPECT_GT(category(split.summary, "tp_comm"), category(folded.summary, "tp_comm"));
  // etp 2 under tp 1 (dp 16): each ETP pair is two replicas, their tokens gathered around
  // half-experts; EP 8 takes every other rank over both nodes.
  ExecutionSpec wide{.dp = 16, .ep = 8, .global_batch = 16};
  wide.etp = 2;
  Modes w = both_modes(moe(crossbar_model(16), kCrossbar, wide));
  EXPECT_NEAR(w.fast, w.fine, 0.02 * w.fine);
  EXPECT_GE(w.fast, w.bound * (1 - 1e-9));
  EXPECT_GE(w.fine, w.bound * (1 - 1e-9));
}

TEST(Experts, ContextParallelExpertsRunInBothModesAboveTheBound) {
  // The crossbar job with 16 experts, top 2, under cp 2: dp 8 x cp 2 = 16 weight replicas, one
  // EP group of all 16 across both nodes, each rank routing its 1,024 tokens of a 2,048-token
  // sequence. Nothing is shared in an exchange's round, so the modes agree; both stay above
  // the bound.
  ModelSpec m = crossbar_model(16);
  ExecutionSpec e{.dp = 8, .ep = 16, .global_batch = 8};
  e.cp = 2;
  Modes r = both_modes(moe(m, kCrossbar, e));
  EXPECT_NEAR(r.fast, r.fine, 0.02 * r.fine);
  EXPECT_GE(r.fast, r.bound * (1 - 1e-9));
  EXPECT_GE(r.fine, r.bound * (1 - 1e-9));
  // Without CP, dp 16 on sequences of 1,024: every rank routes the same 1,024 tokens to the
  // same 16 experts, so the all-to-alls carry the same bytes and take the same time; only the
  // attention (its keys span 2,048 tokens under CP) and CP's gathers differ.
  ModelSpec half = m;
  half.seq_len = 1024;
  Outcome with_cp = simulate(moe(m, kCrossbar, e));
  Outcome without = simulate(moe(half, kCrossbar, {.dp = 16, .ep = 16, .global_batch = 16}));
  double ep = category(with_cp.summary, "ep_comm");
  ASSERT_GT(ep, 0.0);
  EXPECT_NEAR(ep, category(without.summary, "ep_comm"), 0.01 * ep);
}

TEST(Experts, TheAllGatherDispatcherRunsInBothModesAboveTheBound) {
  // 16 experts, top 4, ep 16 over 2 nodes of 8: every EP rank gathers the group's tokens on
  // rail-aligned rings (14 NVLink pairs, 2 over the NIC) and reduce-scatters the outputs.
  // No ring shares a link with another, so the modes agree; the bound prices each ring at its
  // slowest pair, as the DP ring's.
  ExecutionSpec e;
  e.moe_dispatcher = MoeDispatcher::allgather;
  Modes r = both_modes(sixteen_way(4, e));
  EXPECT_NEAR(r.fast, r.fine, 0.01 * r.fine);
  EXPECT_GE(r.fast, r.bound * (1 - 1e-9));
  EXPECT_GE(r.fine, r.bound * (1 - 1e-9));
}

TEST(Experts, DeepEpSendsEachTokenOnceAcrossNodesInBothModesAboveTheBound) {
  // 16 experts, top 4, ep 16 over 2 nodes of 8: a token's 4 experts are on the other node's
  // 8 with probability 1 - (8 x 7 x 6 x 5) / (16 x 15 x 14 x 13) = 1 - 1680 / 43680 = 0.9615,
  // where the pairwise exchange sends it there 4 x 8 / 16 = 2 times on average: DeepEP sends
  // 0.48 of those bytes over the network, once to the rail peer, and forwards them over
  // NVLink. Both modes agree and beat the pairwise rounds. No two flows share a link, so the
  // bound prices the exchange exactly: the modes meet it to SimGrid's timing precision.
  Modes pairwise = both_modes(sixteen_way(4));
  ExecutionSpec e;
  e.ep_collective = "deepep";
  Modes r = both_modes(sixteen_way(4, e));
  EXPECT_NEAR(r.fast, r.fine, 0.01 * r.fine);
  EXPECT_GE(r.fast, r.bound * (1 - 1e-6));
  EXPECT_GE(r.fine, r.bound * (1 - 1e-6));
  EXPECT_LT(r.fast, pairwise.fast);
  // Group-limited routing, 2 groups of 8 (one a node), 1 chosen: a token's experts are all on
  // one node, the other's with probability 1/2, against 2 copies there on average: DeepEP now
  // sends 0.25 of the copies over the network, where it sent 0.48. Both modes agree, above
  // the bound, and below the ungrouped exchange.
  Scenario grouped = sixteen_way(4, e);
  grouped.model.router_groups = 2, grouped.model.router_group_topk = 1;
  EXPECT_DOUBLE_EQ(deepep_network_share(16, 4, 16, 8, 2, 1), 0.25);
  Modes g = both_modes(grouped);
  EXPECT_NEAR(g.fast, g.fine, 0.01 * g.fine);
  EXPECT_GE(g.fast, g.bound * (1 - 1e-6));
  EXPECT_GE(g.fine, g.bound * (1 - 1e-6));
  EXPECT_LT(g.fast, r.fast);
}

TEST(Experts, FastModeRunsTheDelayedUpdatesReductionRoundByRound) {
  // 8 experts, top 2, on 64 rail-optimized nodes of 4 GPUs: tp 4 fills a node, ep 4 spans
  // four, and the expert DP ring (64 / 4 = 16 members, 30 rounds) reduces the previous step's
  // gradients beside the passes, meeting every layer's all-to-all across the nodes. Fine mode
  // holds each round to its slowest member; merged into one flow per member, each averaged
  // its own contention and the step came out 3.2% short of fine mode's (validate's random
  // scenario 288, cut to 2 layers and 64 nodes). Fast mode keeps up to 32 of an in_rounds
  // ring's rounds (kMaxRoundsInRounds), so all 30 here: it is fine mode here, and the rest of
  // the step folds as ever.
  ModelSpec model{.kind = ModelKind::mlp,
                  .layers = 2,
                  .d_model = 2048,
                  .d_ff = 8192,
                  .seq_len = 512,
                  .experts = 8,
                  .top_k = 2};
  topo::FatTreeParams nodes = fat_tree(64, 4);
  nodes.rail_optimized = true;
  ExecutionSpec e{.dp = 64, .tp = 4, .ep = 4, .global_batch = 256};
  e.sequence_parallel = e.delayed_update = true;
  Modes r = both_modes(moe(model, nodes, e));
  EXPECT_NEAR(r.fast, r.fine, 1e-3 * r.fine);
  EXPECT_GE(r.fast, r.bound * (1 - 1e-9));
}

TEST(Rings, FastModePacesARingThatMixesTiersByItsSlowestPair) {
  // DP 16 over 2 nodes of 8 on one leaf: 8 channels (rings), each with 14 pairs over NVLink
  // and 2 over the NIC (50 GB/s, alpha 4 hops x 0.5 us = 2 us), every GPU's NIC in one of
  // them. Fine mode's rounds run nearly in lockstep at the NIC pairs' pace; fast mode caps
  // every flow at it. Two MLP layers of 2 x 4096 x 16384 parameters x 2 B = 536,870,912 B of
  // gradients: 2 (p-1) (alpha + n / (p c B)) = 30 x (2 us + 536870912 / 16 / 8 / 50e9) =
  // 30 x 85.886 us = 2.577 ms after the compute. Unpaced, the flows on NVLink pairs (7 per
  // GPU, sharing its 450 GB/s) would end in 30 x 65 us and leave their ranks idle; fine
  // mode's ranks leave within about a round of one another (its skew), fast mode's together.
  topo::FatTreeParams links = fat_tree(2, 8);
  links.leaf_down_ports = 16;
  Scenario s = scenario(links, {.dp = 16, .global_batch = 16});
  const double ring = 30 * (2e-6 + 536870912.0 / 16 / 8 / 50e9);
  Outcome fast = simulate(s, sim::Fidelity::fast), fine = simulate(s, sim::Fidelity::fine);
  for (const Outcome* run : {&fast, &fine}) {
    double ring_part = run->result.step_time.value() - category(run->summary, "compute");
    EXPECT_NEAR(ring_part, ring, 0.01 * ring);
  }
  EXPECT_NEAR(category(fast.summary, "dp_comm"), ring, 0.001 * ring);
  EXPECT_LT(category(fine.summary, "idle"), 0.05 * fine.result.step_time.value());
}

TEST(Rings, RailAlignedRingsStayOnTheirRails) {
  // DP 32 over 4 rail-optimized nodes of 8. In member order the ring's node-boundary pairs
  // (GPU 7 of a node to GPU 0 of the next) would leave rail 7 for rail 0 through a spine, where
  // two of the four hashed onto one spine link: 41.8 ms, 2x the alpha-beta time, until issue
  // 14. Rail-aligned, as NCCL builds rings, every other node is walked backwards (0..7, 7..0):
  // each boundary pair joins GPUs of one local index on their rail's leaf, and no link carries
  // two flows. NCCL runs 8 such rings (channels), channel c turned by c GPUs in every node,
  // so each GPU's NIC carries one channel's 1/8 of the bytes. The collective takes
  // 62 x (alpha + n / (32 x 8 x 50 GB/s)) with n = 536,870,912 B of gradients and alpha =
  // 4 hops x 0.5 us = 2 us (GPU-NIC, NIC-leaf, leaf-NIC, NIC-GPU), the slowest pair's:
  // 62 x 43.94 us = 2.724 ms, which is the bound's figure too.
  GpuSpec no_launch = h100();
  no_launch.kernel_latency = Seconds(0);
  topo::FatTreeParams rails{.nodes = 4, .gpus_per_node = 8, .rail_optimized = true};
  Scenario s = scenario(rails, {.dp = 32, .global_batch = 32}, mlp(2), no_launch);
  const double alone = 62 * (2e-6 + 536870912.0 / 32 / 8 / 50e9);
  for (auto fidelity : {sim::Fidelity::fast, sim::Fidelity::fine}) {
    Outcome run = simulate(s, fidelity);
    double ring = run.result.step_time.value() - category(run.summary, "compute");
    EXPECT_NEAR(ring, alone, 0.01 * alone);
    EXPECT_LT(run.result.step_time.value(), 1.01 * run.summary.bound.value());
  }
}

} // namespace
} // namespace trainsim
