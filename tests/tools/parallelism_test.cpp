// Schedules, sharding and the fast mode's folding, checked against hand-derived arithmetic
// or against the fine mode on the same scenario.
#include "tests/sim/step_fixtures.hpp"
#include "tools/io/scenario_loader.hpp"

#include <fstream>
#include <sstream>

namespace trainsim {
namespace {

using namespace testing;

/// Share of the step a pipeline spends not computing, averaged over ranks.
double waiting_share(const Outcome& o) {
  return (category(o.summary, "bubble") + category(o.summary, "idle") +
          category(o.summary, "pp_comm")) /
         o.result.step_time.value();
}

// Four single-GPU nodes on one leaf, transfers free: only the schedule shapes the step.
Scenario pipeline(ExecutionSpec execution, int layers) {
  return scenario(four_nodes(ideal_fabric()), std::move(execution), mlp(layers));
}

TEST(Schedules, GPipeWaitsLikeOneFOneB) {
  // Both fill and drain the pipeline once: (PP - 1) / (m + PP - 1) = 3 / 11 with m = 8.
  Outcome run =
      simulate(pipeline({.pp = 4, .global_batch = 8, .schedule = PipelineSchedule::gpipe}, 8));
  EXPECT_NEAR(waiting_share(run), 3.0 / 11.0, 0.01 * 3.0 / 11.0);
}

TEST(Schedules, InterleavingDividesTheBubbleByTheChunks) {
  // v = 2 chunks of 2 layers per GPU: each pass is half as long, the fill is PP - 1 such
  // passes, so the waiting share is (PP - 1) / (v m + PP - 1) = 3 / 19 with m = 8.
  Outcome run = simulate(pipeline(
      {.pp = 4, .global_batch = 8, .schedule = PipelineSchedule::interleaved, .interleave = 2},
      16));
  EXPECT_NEAR(waiting_share(run), 3.0 / 19.0, 0.01 * 3.0 / 19.0);
}

TEST(Schedules, AnUnevenLastMicrobatchGroupRunsAsTheBoundsScheduleGraph) {
  // Megatron-Core's example: pp 2, 8 layers in 2 x 2 chunks, M = 5 microbatches per pipeline
  // (10 sequences over dp 2) in groups of N = 3, then 2. Transfers are free and the stages
  // alike, so the simulated step is the schedule graph's longest path plus the DP reduction,
  // which the bound prices the same way (models/pipeline_path.hpp walks the same order), and
  // longer than one stage's compute (the fill and drain are bubbles).
  ExecutionSpec e{.dp = 2,
                  .pp = 2,
                  .global_batch = 10,
                  .schedule = PipelineSchedule::interleaved,
                  .interleave = 2};
  e.microbatch_group = 3;
  Outcome run = simulate(pipeline(e, 8));
  EXPECT_NEAR(run.result.step_time.value(), run.summary.bound.value(),
              1e-6 * run.summary.bound.value());
  EXPECT_GT(category(run.summary, "bubble"), 0.0);
}

TEST(Sharding, ZeroOneMovesWhatAnAllReduceMoves) {
  // A ring reduce-scatter plus all-gather is the two halves of a ring all-reduce: the same
  // 2(p-1) steps of n/p bytes, so the DP phase takes the same time.
  double plain =
      category(simulate(scenario(four_nodes(), {.dp = 4, .global_batch = 4})).summary, "dp_comm");
  double zero1 = category(
      simulate(scenario(four_nodes(), {.dp = 4, .global_batch = 4, .zero = 1})).summary, "dp_comm");
  EXPECT_NEAR(zero1, plain, 1e-9 * plain);
}

TEST(Sharding, SequenceParallelMovesWhatTensorParallelMovesAndAGatherMore) {
  // Each all-reduce becomes a reduce-scatter and an all-gather of the same tensor (the same
  // 2(p-1) ring steps), and the backward gathers each block's input once more: on the MLP
  // blocks here (2 layers, one block each, forward and backward: 4 all-reduces) that is 2
  // all-gathers more, each half an all-reduce: tp_comm grows by 2 x 1/2 / 4 = 1/4.
  Outcome plain = simulate(scenario(fat_tree(1), {.tp = 8, .global_batch = 1}));
  Outcome sp =
      simulate(scenario(fat_tree(1), {.tp = 8, .global_batch = 1, .sequence_parallel = true}));
  double tp = category(plain.summary, "tp_comm");
  EXPECT_NEAR(category(sp.summary, "tp_comm"), 1.25 * tp, 1e-9);
  EXPECT_NEAR(sp.result.step_time.value(), plain.result.step_time.value() + 0.25 * tp, 1e-9);
}

TEST(Overlap, GradientBucketsHideBehindTheLastBackwardPass) {
  // With 4 layers in 1 GB buckets of 2 x 4096 x 16384 x 2 B = 268 MB per layer, the first
  // buckets reduce while later layers still compute: DP time shrinks, the step too.
  ExecutionSpec base{.dp = 4, .global_batch = 8};
  ExecutionSpec overlap = base;
  overlap.dp_overlap = true;
  overlap.dp_bucket = Bytes(500e6);
  Outcome serial = simulate(scenario(four_nodes(), base, mlp(4)));
  Outcome overlapped = simulate(scenario(four_nodes(), overlap, mlp(4)));
  EXPECT_LT(category(overlapped.summary, "dp_comm"), 0.9 * category(serial.summary, "dp_comm"));
  EXPECT_LT(overlapped.result.step_time, serial.result.step_time);
  EXPECT_GE(overlapped.result.step_time.value(), (overlapped.summary.bound * (1 - 1e-6)).value());
}

TEST(Overlap, ADelayedUpdateHidesTheReductionBehindTheWholeStep) {
  // Pure DP 4 on four nodes: nothing else uses the links, so run beside the passes from the
  // step's start, the reduction of the previous step's gradients takes what it takes alone,
  // and the step is the longer of the passes and the reduction (an MLP has no optimizer
  // kernel). Serially the step is their sum: compute + dp_comm. The reduction of 4 layers x
  // 2 x 4096 x 16384 x 2 B = 1.07 GB takes 2 x 3/4 x 1.07e9 / 50e9 = 32 ms; a sequence's
  // passes 4 x 3 x 4 x 4096^2 x 16384 FLOP / 791 TFLOP/s = 16.7 ms. With 8 sequences per GPU
  // the passes are the longer; with 1 the reduction is, and what it adds shows as dp_comm.
  // The bound prices the same and is exact here.
  for (long per_gpu : {8L, 1L}) {
    ExecutionSpec base{.dp = 4, .global_batch = 4 * per_gpu, .zero = 1};
    ExecutionSpec delayed = base;
    delayed.delayed_update = true;
    ModelSpec model = mlp(4);
    Outcome serial = simulate(scenario(four_nodes(), base, model));
    Outcome overlapped = simulate(scenario(four_nodes(), delayed, model));
    double passes = category(serial.summary, "compute");
    double reduction = category(serial.summary, "dp_comm");
    EXPECT_NEAR(serial.result.step_time.value(), passes + reduction, 1e-9 * passes);
    EXPECT_EQ(passes > reduction, per_gpu == 8);
    double step = overlapped.result.step_time.value();
    EXPECT_NEAR(step, std::max(passes, reduction), 1e-6 * step);
    EXPECT_NEAR(category(overlapped.summary, "dp_comm"), std::max(0.0, reduction - passes),
                1e-6 * step);
    EXPECT_NEAR(overlapped.summary.bound.value(), step, 1e-6 * step);
  }
}

TEST(Overlap, EarlyParameterGathersHideBehindTheFirstForward) {
  // Pure DP 4 on four nodes, ZeRO-1, 8 sequences per GPU, an MLP of 4 layers of 2 x 4096 x
  // 16384 parameters: each layer's all-gather of 268 MB at BF16 takes 3/4 x 268e6 / 50e9 =
  // 4.0 ms, a layer's forward (2 x 2 x 4096^2 x 16384 FLOP at 791 TFLOP/s) 1.39 ms. After the
  // optimizer the gathers take 4 x 4.0 ms. Run from the step's start in buckets of one layer,
  // layer l's first forward waits until gather l ends at (l + 1) x 4.0 ms: the first three
  // layers' forwards hide behind the gathers after them, so the step is 3 forwards of a layer
  // shorter, less the latency four gathers pay where one paid it: 3 ring steps each of 2 us
  // (GPU-NIC-leaf-NIC-GPU), 9 x 2 us more. A layer's forward is a third of its passes (the
  // backward runs two kernels of the forward's size): compute / (8 x 4 x 3). In one bucket the
  // first layer waits for all of it and nothing hides. The bound leaves the gathers out.
  ExecutionSpec base{.dp = 4, .global_batch = 32, .zero = 1};
  ExecutionSpec early = base;
  early.param_gather_overlap = true;
  early.dp_bucket = Bytes(2e8);
  Outcome serial = simulate(scenario(four_nodes(), base, mlp(4)));
  Outcome overlapped = simulate(scenario(four_nodes(), early, mlp(4)));
  double layer_forward = category(serial.summary, "compute") / (8 * 4 * 3);
  double step = serial.result.step_time.value();
  EXPECT_NEAR(overlapped.result.step_time.value(), step - 3 * layer_forward + 9 * 2e-6,
              1e-6 * step);
  EXPECT_GE(overlapped.result.step_time.value(), (overlapped.summary.bound * (1 - 1e-6)).value());
  early.dp_bucket = Bytes(2e9);
  Outcome one_bucket = simulate(scenario(four_nodes(), early, mlp(4)));
  EXPECT_NEAR(one_bucket.result.step_time.value(), step, 1e-6 * step);
}

TEST(Overlap, TpCollectivesHideBehindTheirKernelsButTheForwardsLastSplit) {
  // TP 2 on one NVSwitch, links without latency, no launch latency: a block's MLP kernel
  // (4 x 4096 x 4096 x 16384 / 2 FLOP at 791 TFLOP/s = 0.69 ms forward) dwarfs its all-reduce
  // (2 ring steps of 4096 x 4096 x 2 B / 2 at 450 GB/s = 75 us), so under tp_overlap a
  // forward block exposes only its last split: a quarter of its all-reduce (kTpOverlapSplits
  // = 4). A backward block exposes nothing: its up matmul's weight gradient (0.35 ms) runs
  // after the input gradient's splits, beside the last quarter (19 us). 2 layers: tp_comm
  // falls from 4 all-reduces to the forward's 2 quarters, and the step by the other 3.5
  // all-reduces. Fast mode's folded pipelines (one per pass) expose the same.
  topo::FatTreeParams links = fat_tree(1, 2);
  links.nvlink_latency = links.pcie_latency = Seconds(0);
  ExecutionSpec base{.tp = 2, .global_batch = 1};
  ExecutionSpec overlap = base;
  overlap.tp_overlap = true;
  for (auto fidelity : {sim::Fidelity::fast, sim::Fidelity::fine}) {
    Outcome serial = simulate(scenario(links, base), fidelity);
    Outcome overlapped = simulate(scenario(links, overlap), fidelity);
    double tp = category(serial.summary, "tp_comm");
    EXPECT_NEAR(tp, 4 * 2 * (4096.0 * 4096 * 2 / 2 / 450e9), 1e-3 * tp);
    EXPECT_NEAR(category(overlapped.summary, "tp_comm"), 0.125 * tp, 1e-6 * tp);
    EXPECT_NEAR(overlapped.result.step_time.value(), serial.result.step_time.value() - 0.875 * tp,
                1e-6 * tp);
    EXPECT_GE(overlapped.result.step_time.value(), (overlapped.summary.bound * (1 - 1e-6)).value());
  }
}

TEST(Overlap, UnderSequenceParallelismAForwardBlockExposesAQuarterOfItsReduceScatter) {
  // The case above with sequence parallelism, as Megatron-LM runs its TP overlap: a block's
  // all-reduce becomes an all-gather before the kernel and a reduce-scatter after it, one
  // ring step each over 2 GPUs (half the all-reduce's two). The kernel's first split runs on
  // the GPU's own shard while the gathers move, so a forward block exposes only the last
  // quarter of its reduce-scatter: 2 layers x (1/4 x 1/2) of an all-reduce, 1/16 of the
  // serial case's 4 all-reduces (half the 1/8 without sequence parallelism). The backward
  // hides its gathers and reduce-scatter as before.
  topo::FatTreeParams links = fat_tree(1, 2);
  links.nvlink_latency = links.pcie_latency = Seconds(0);
  ExecutionSpec overlap{.tp = 2, .global_batch = 1, .sequence_parallel = true};
  overlap.tp_overlap = true;
  const double all_reduces = 4 * 2 * (4096.0 * 4096 * 2 / 2 / 450e9);
  for (auto fidelity : {sim::Fidelity::fast, sim::Fidelity::fine}) {
    Outcome overlapped = simulate(scenario(links, overlap), fidelity);
    EXPECT_NEAR(category(overlapped.summary, "tp_comm"), all_reduces / 16, 1e-3 * all_reduces);
    EXPECT_GE(overlapped.result.step_time.value(), (overlapped.summary.bound * (1 - 1e-6)).value());
  }
}

TEST(Experts, AllToAllOverNvlinkMatchesPairwiseAlphaBeta) {
  // 4 GPUs on one NVSwitch, DP 4 = EP 4, 4 experts, top-1, one 4096-token microbatch each.
  // Per MoE layer, dispatch and combine forward, again backward: 4 all-to-alls of
  // n = 4096 x 4096 x 2 B per rank; pairwise: (p-1) (alpha + n / (p B)) with alpha = 1 us.
  ModelSpec experts = mlp(2);
  experts.experts = 4;
  // On the H100 SXM preset, kernel latency and all: only ep_comm is measured.
  Scenario s = scenario(fat_tree(1, 4), {.dp = 4, .ep = 4, .global_batch = 4}, experts, h100());
  const double n = 4096.0 * 4096 * 2;
  const double all_to_all = 3 * (1e-6 + n / 4 / 450e9);
  const double expected = 2 /*layers*/ * 4 * all_to_all;
  for (auto fidelity : {sim::Fidelity::fast, sim::Fidelity::fine})
    EXPECT_NEAR(category(simulate(s, fidelity).summary, "ep_comm"), expected, 0.01 * expected);
}

TEST(Fidelity, FastAndFineAgreeOnThe1kReferenceScenario) {
  // The fast mode folds each pipeline pass into a few activities; on the 1k-GPU member of the
  // reference family (rail-optimized 3-tier fat-tree, TP 8 x PP 16 x DP 8), where DP rings and
  // pipeline transfers share spine and core links, it must stay within 1% of the fine mode.
  // One layer per stage instead of 126 / 16: the same ranks, rings, routes and contention at an
  // eighth of the events (the test took 30 s of a 2-core machine with the whole model).
  LoadedScenario loaded = load_scenario(TRAINSIM_SOURCE_DIR "/scenarios/reference/1k.yaml");
  loaded.scenario.model.layers = loaded.scenario.execution.pp;
  sim::SimOptions fast{sim::Fidelity::fast, false, false, {}};
  sim::SimOptions fine{sim::Fidelity::fine, false, false, {}};
  double t_fast = sim::simulate(loaded.scenario, loaded.topology, fast).step_time.value();
  double t_fine = sim::simulate(loaded.scenario, loaded.topology, fine).step_time.value();
  EXPECT_NEAR(t_fast, t_fine, 0.01 * t_fine);
}

TEST(Fidelity, FineRingsKeepTheirPaceWhenTheirGpusRunAtUnequalSpeeds) {
  // TP 8 over two nodes of 4 GPUs (each ring has 4 channels, one per NIC) on GPUs of unequal
  // speed (the preset's spread), 8 layers of d_model 1024: small all-reduces, each member
  // arriving a little apart. Fine mode's ring sends used to wait for their receiver to reach
  // the same round; once a ring's members were apart, every round cost a pair's time twice,
  // and the TP all-reduces of one of the two TP groups ran at half speed for the rest of the
  // step (random scenario 22 of validate's fidelity section: fine 15.1 ms against fast
  // 11.3 ms). Both modes now wait only for the data: the same step within 1%, the same TP
  // time within 2% of it.
  ModelSpec m = mlp(8);
  m.kind = ModelKind::transformer;
  m.d_model = 1024, m.d_ff = 4096, m.heads = 8, m.seq_len = 512;
  topo::FatTreeParams two_nodes = fat_tree(4, 4);
  two_nodes.leaf_down_ports = 16;
  Scenario s = scenario(two_nodes, {.dp = 2, .tp = 8, .global_batch = 8}, m, h100_preset());
  Outcome fast = simulate(s, sim::Fidelity::fast), fine = simulate(s, sim::Fidelity::fine);
  double step = fine.result.step_time.value();
  EXPECT_NEAR(fast.result.step_time.value(), step, 0.01 * step);
  EXPECT_NEAR(category(fast.summary, "tp_comm"), category(fine.summary, "tp_comm"), 0.02 * step);
}

TEST(Fidelity, ZeroThreeGatherWaitsAreDataParallelTimeInBothModes) {
  // ZeRO-3 over 64 single-GPU ranks on 8 nodes whose leaves share a 4:1 spine tier with
  // static per-pair routes: the DP rings' flows meet unequal loads. Step by step (fine) a ring
  // moves at its slowest flow's pace, so its members finish together; fast mode merges each
  // ring's rounds into one flow per member, and a member whose flow met less load used to run
  // ahead and wait at the next gather, its wait counted as idle at the step's end (15.4 ms of
  // a 66.6 ms step, where fine mode has 0.1 ms). Each wait is dp_comm in both modes.
  topo::FatTreeParams clos = fat_tree(8);
  clos.leaf_down_ports = 16;
  clos.oversubscription = 4;
  clos.ecmp = "pair";
  ExecutionSpec e{.dp = 64, .global_batch = 64};
  e.zero = 3;
  Scenario s = scenario(clos, e, mlp(4), h100());
  Outcome fast = simulate(s, sim::Fidelity::fast), fine = simulate(s, sim::Fidelity::fine);
  double step = fine.result.step_time.value();
  EXPECT_NEAR(fast.result.step_time.value(), step, 0.01 * step);
  EXPECT_NEAR(category(fast.summary, "idle"), category(fine.summary, "idle"), 0.005 * step);
  EXPECT_NEAR(category(fast.summary, "dp_comm"), category(fine.summary, "dp_comm"), 0.02 * step);
}

TEST(Bottlenecks, OversubscribedFabricStretchesTheDataParallelPhase) {
  // 16 nodes of 8 GPUs, one node per leaf (8 NIC ports), TP 8 and DP 16 across nodes: every
  // hop of the 8 DP rings leaves its leaf, 8 flows per leaf. 1:1 gives each leaf 8 uplinks;
  // 4:1 gives 2, so the rings' bandwidth part takes up to 4x longer.
  auto scenario_with = [](double oversubscription) {
    // Every cable built (ecmp: pair), so that the busiest spine-tier link is one cable.
    topo::FatTreeParams clos{.nodes = 16,
                             .leaf_down_ports = 8,
                             .oversubscription = oversubscription,
                             .ecmp = "pair"};
    return scenario(clos, {.dp = 16, .tp = 8, .global_batch = 16}, mlp(2), h100());
  };
  Outcome full = simulate(scenario_with(1)), thin = simulate(scenario_with(4));
  EXPECT_GT(category(thin.summary, "dp_comm"), 2.0 * category(full.summary, "dp_comm"));
  // The statistics name the saturated tier: under 4:1 the busiest spine-tier link is busier.
  auto busiest_spine = [&](double oversubscription, const Outcome& run) {
    LoadedScenario loaded = build_scenario(scenario_with(oversubscription));
    auto tiers = summarize_links(loaded.topology, run.result.channel_bytes, run.result.step_time);
    auto spine = std::find_if(tiers.begin(), tiers.end(),
                              [](const TierLoad& t) { return t.tier == "spine"; });
    EXPECT_NE(spine, tiers.end());
    return spine->busiest.front();
  };
  LinkLoad thin_top = busiest_spine(4, thin), full_top = busiest_spine(1, full);
  EXPECT_NE(thin_top.name.find("spine"), std::string::npos) << thin_top.name;
  EXPECT_GT(thin_top.bytes, full_top.bytes);
}

} // namespace
} // namespace trainsim
