// What each pipeline stage's GPUs run in one step (models/step_program): the op sequence of small
// scenarios, derived by hand from the schedule (models/schedule.hpp) and the layer's shape
// (docs/architecture.md, "How a step is simulated"), and what fold() makes of it.
// Ops are written as tokens (step_program_fixtures.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/step_compute.hpp"
#include "models/workload.hpp"
#include "models/step_program.hpp"

#include "step_program_fixtures.hpp"

namespace trainsim {
namespace {

using namespace program_testing;

TEST(Program, OneStageOneLayerIsItsKernelsForwardThenBackward) {
  // Forward: attention then MLP; backward: MLP then attention, each kernel twice as long
  // (input and weight gradients). tp 1 has no collectives, pp 1 no transfers, dp 1 no sync.
  Scenario s = scenario(ModelKind::transformer, 1, grid(1, 1, 1, 1));
  Program p = stage_program(s, 0, false);
  ASSERT_EQ(shape(p), "C C C C waitS");
  LayerCosts c = layer_costs(s.model, s.execution);
  Seconds attention = kernel_time(c.attention, s.system.gpu),
          mlp = kernel_time(c.mlp, s.system.gpu);
  EXPECT_EQ(p[0].duration, attention);
  EXPECT_EQ(p[1].duration, mlp);
  EXPECT_DOUBLE_EQ(p[2].duration.value(), (mlp * 2.0).value());
  EXPECT_DOUBLE_EQ(p[3].duration.value(), (attention * 2.0).value());
  EXPECT_TRUE(p[0].forward);
  EXPECT_FALSE(p[3].forward);
  EXPECT_EQ(p[3].layer, 0);
  // Recomputation runs the layer's forward again (attention, MLP) before the backward's
  // kernels, which keep their length: forward 2 kernels, backward 2 recomputed + 2 = 6.
  s.execution.recompute = Recompute::full;
  Program again = stage_program(s, 0, false);
  ASSERT_EQ(shape(again), "C C C C C C waitS");
  EXPECT_EQ(again[2].duration, attention);
  EXPECT_EQ(again[3].duration, mlp);
  EXPECT_DOUBLE_EQ(again[4].duration.value(), (mlp * 2.0).value());
  EXPECT_FALSE(again[2].forward); // recomputed within the backward pass
  // Folded: each pass's kernels are one run (a run ends where the pass does), so one compute
  // op of attention + MLP forward and one of 2 x (attention + MLP) backward.
  s.execution.recompute = Recompute::none;
  Program folded = stage_program(s, 0, true);
  ASSERT_EQ(shape(folded), "C C waitS");
  EXPECT_DOUBLE_EQ(folded[0].duration.value(), (attention + mlp).value());
  EXPECT_DOUBLE_EQ(folded[1].duration.value(), (2.0 * (attention + mlp)).value());
  EXPECT_EQ(folded[0].layer, -1);
}

TEST(Program, ContextParallelismGathersKeysAndValuesAroundTheAttention) {
  // cp 2 over a sequence of 4: each rank holds 2 tokens. Forward: the K/V all-gather, then
  // attention and MLP; backward: MLP, then the gather again (only the local K and V are kept),
  // attention's gradients and the reduce-scatter of dK and dV. The two CP ranks hold the same
  // weights, so the gradients are all-reduced over them (dp 1 x cp 2).
  ExecutionSpec e = grid(1, 1, 1, 1);
  e.cp = 2;
  Scenario s = scenario(ModelKind::transformer, 1, e);
  Program p = stage_program(s, 0, false);
  ASSERT_EQ(shape(p), "cp.AG C C C cp.AG C cp.RS waitS dp.AR");
  // Gathered: K and V (d_model 8 each under MHA) of the whole sequence's 4 tokens at 2 bytes:
  // 2 x 8 x 4 x 2 = 128 bytes, the reduce-scatter's input the same.
  EXPECT_EQ(p[0].bytes, Bytes(128));
  EXPECT_EQ(p[6].bytes, Bytes(128));
  // The rank's share: its attention kernel prices 2 tokens, as cp 1 would over a 2-token
  // microbatch with keys of the whole sequence.
  EXPECT_EQ(layer_costs(s.model, s.execution).tp_allreduce, Bytes(2 * 8 * 2));
  // Full recomputation gathers once more, in the recomputed forward.
  s.execution.recompute = Recompute::full;
  EXPECT_EQ(shape(stage_program(s, 0, false)), "cp.AG C C cp.AG C C C cp.AG C cp.RS waitS dp.AR");
}

TEST(Program, TwoStagesRunOneForwardOneBackward) {
  // MLP model, 2 layers on pp 2 (one per stage), 2 microbatches under 1F1B. Stage 0 warms up
  // with min(pp - 0 - 1, 2) = 1 forward: F0 F1 B0 B1; stage 1 with none: F0 B0 F1 B1. Stage 0
  // receives no activation (it is first) and sends no gradient back; stage 1 the reverse.
  Scenario s = scenario(ModelKind::mlp, 2, grid(1, 1, 2, 2));
  Program first = stage_program(s, 0, false), last = stage_program(s, 1, false);
  EXPECT_EQ(shape(first), "C sendF C sendF recvB C recvB C waitS");
  EXPECT_EQ(shape(last), "recvF C C sendB recvF C C sendB waitS");
  std::vector<int> microbatches;
  for (const Op& op : first) microbatches.push_back(op.microbatch);
  EXPECT_EQ(microbatches, (std::vector<int>{0, 0, 1, 1, 0, 0, 1, 1, -1}));
  // Folding merges only what lies between two transfers, within one pass: stage 1's forward
  // and backward of one microbatch stay two compute ops.
  EXPECT_EQ(shape(stage_program(s, 1, true)), "recvF C C sendB recvF C C sendB waitS");
}

TEST(Program, InterleavedStagesPassThroughEveryChunk) {
  // MLP, 4 layers on pp 2 with 2 chunks: one layer per chunk, 2 microbatches, 4 passes each
  // way. Stage 0 warms up with min(2 (pp - 0 - 1) + (2 - 1) pp, 4) = 4 forwards, so runs all
  // forwards (mb0 c0, mb1 c0, mb0 c1, mb1 c1), then all backwards (chunks in reverse: mb0 c1,
  // mb1 c1, mb0 c0, mb1 c0). Chunk 0 of stage 0 is the first virtual stage (no receive
  // forward, no send backward); chunk 1 sits between stage 1's chunks 0 and 1, so it receives
  // and sends both ways.
  ExecutionSpec e = grid(1, 1, 2, 2);
  e.schedule = PipelineSchedule::interleaved;
  e.interleave = 2;
  Program p = stage_program(scenario(ModelKind::mlp, 4, e), 0, false);
  EXPECT_EQ(shape(p), "C sendF C sendF recvF C sendF recvF C sendF "
                      "recvB C sendB recvB C sendB recvB C recvB C waitS");
  std::vector<std::pair<int, int>> passes; // (microbatch, chunk) of each compute op
  for (const Op& op : p)
    if (op.kind == OpKind::compute) passes.emplace_back(op.microbatch, op.chunk);
  EXPECT_EQ(passes, (std::vector<std::pair<int, int>>{
                        {0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 1}, {1, 1}, {0, 0}, {1, 0}}));
}

TEST(Program, ZeroShardsTheGradientsAndTheParameters) {
  // dp 2, one MLP layer of 2 x 8 x 32 = 512 parameters in BF16: every collective moves its
  // 1024 bytes. ZeRO-1 and 2 reduce-scatter the gradients at the end of the step and
  // all-gather the updated parameter shards back. ZeRO-3 all-gathers the layer's parameters
  // before each use (forward and backward) and reduce-scatters its gradients right after the
  // backward, so nothing is left for the end of the step.
  for (auto [zero, expected] :
       {std::pair{1, "C C waitS dp.RS dp.AG"}, std::pair{2, "C C waitS dp.RS dp.AG"},
        std::pair{3, "dp.AG C dp.AG C dp.RS waitS"}}) {
    ExecutionSpec e = grid(2, 1, 1, 1);
    e.zero = zero;
    Program p = stage_program(scenario(ModelKind::mlp, 1, e), 0, false);
    EXPECT_EQ(shape(p), expected) << "zero " << zero;
    for (const Op& op : p) {
      if (op.kind == OpKind::collective) {
        EXPECT_EQ(op.bytes, Bytes(1024.0)) << "zero " << zero;
      }
    }
    // FP32 gradients: the reductions move 512 x 4 = 2048 bytes, the parameter gathers still
    // 512 x 2 = 1024.
    e.fp32_gradients = true;
    for (const Op& op : stage_program(scenario(ModelKind::mlp, 1, e), 0, false)) {
      if (op.kind != OpKind::collective) continue;
      bool gather = op.collective == CollectiveOp::all_gather;
      EXPECT_EQ(op.bytes, Bytes(gather ? 1024.0 : 2048.0)) << "zero " << zero;
    }
  }
}

TEST(Program, PrefetchedZero3GathersStartALayerAhead) {
  // dp 2, ZeRO-3, 3 MLP layers, one microbatch. Forward: layer 0 starts its own gather (the
  // DP stream's 1st collective) and layer 1's (2nd) and waits for the 1st; layer 1 starts
  // layer 2's (3rd) and waits for the 2nd; layer 2 waits for the 3rd. Backward, from layer 2:
  // its gather (4th) and layer 1's (5th), wait for the 4th, its kernels, its reduce-scatter
  // (6th); layer 1 starts layer 0's gather (7th), waits for the 5th, reduce-scatters (8th);
  // layer 0 waits for the 7th and reduce-scatters (9th). The step waits for the stream.
  ExecutionSpec e = grid(2, 1, 1, 1);
  e.zero = 3;
  e.zero3_prefetch = true;
  Program p = stage_program(scenario(ModelKind::mlp, 3, e), 0, false);
  EXPECT_EQ(shape(p), "start:dp.AG start:dp.AG waitC:1 C start:dp.AG waitC:2 C waitC:3 C "
                      "start:dp.AG start:dp.AG waitC:4 C start:dp.RS start:dp.AG waitC:5 C "
                      "start:dp.RS waitC:7 C start:dp.RS waitS waitC");
}

TEST(Program, OverlappedGradientsGoOutInBuckets) {
  // dp 2, 4 MLP layers of 1024 gradient bytes, buckets of 2048: during the (only, so last)
  // backward pass a bucket starts after every second layer, in the background; the step
  // ends by waiting for them instead of reducing everything at once.
  ExecutionSpec e = grid(2, 1, 1, 1);
  e.dp_overlap = true;
  e.dp_bucket = Bytes(2048.0);
  Scenario s = scenario(ModelKind::mlp, 4, e);
  Program p = stage_program(s, 0, false);
  EXPECT_EQ(shape(p), "C C C C C C start:dp.AR C C start:dp.AR waitS waitC");
  EXPECT_EQ(p[6].bytes, Bytes(2048.0));
  EXPECT_EQ(p[9].bytes, Bytes(2048.0));
  // A bucket start ends a run, as the pass's end does: the forward folds into one compute op,
  // the first two backward layers into another, the last two into a third.
  EXPECT_EQ(shape(stage_program(s, 0, true)), "C C start:dp.AR C start:dp.AR waitS waitC");
  // A bucket larger than all the gradients (4096 bytes) still goes out, at the end of the pass.
  s.execution.dp_bucket = Bytes(1e9);
  Program one = stage_program(s, 0, false);
  EXPECT_EQ(shape(one), "C C C C C C C C start:dp.AR waitS waitC");
  EXPECT_EQ(one[8].bytes, Bytes(4096.0));
}

TEST(Program, ADelayedUpdateReducesThePreviousGradientsBesideTheStep) {
  // dp 2, ZeRO-1, 4 MLP layers of 1024 gradient bytes: the previous step's 4096 bytes are
  // reduce-scattered and their parameters all-gathered (4096 bytes at BF16) on the DP stream
  // from the step's start; the step ends by waiting for them, with no reduction after the
  // passes. Unfolded and folded alike, the starts come before every kernel, and both run
  // round by round in fast mode too (Op::in_rounds).
  ExecutionSpec e = grid(2, 1, 1, 1);
  e.zero = 1;
  e.delayed_update = true;
  Scenario s = scenario(ModelKind::mlp, 4, e);
  Program p = stage_program(s, 0, false);
  EXPECT_EQ(shape(p), "start:dp.RS start:dp.AG C C C C C C C C waitS waitC");
  EXPECT_EQ(p[0].bytes, Bytes(4096.0));
  EXPECT_EQ(p[1].bytes, Bytes(4096.0));
  Program folded = stage_program(s, 0, true);
  EXPECT_EQ(shape(folded), "start:dp.RS start:dp.AG C C waitS waitC");
  EXPECT_TRUE(folded[0].in_rounds && folded[1].in_rounds);
  // Without ZeRO, one all-reduce.
  s.execution.zero = 0;
  EXPECT_EQ(shape(stage_program(s, 0, true)), "start:dp.AR C C waitS waitC");
  // The reduction after the passes merges its rounds in fast mode, as every other collective.
  s.execution.delayed_update = false;
  for (const Op& op : stage_program(s, 0, true)) EXPECT_FALSE(op.in_rounds);
}

TEST(Program, EarlyParameterGathersWaitAtEachLayersFirstForward) {
  // dp 2, ZeRO-1, 4 MLP layers of 1024 parameter bytes (BF16), buckets of 2048 bytes: the
  // updated parameters are all-gathered from the step's start in two buckets (layers 0-1 and
  // 2-3) on the DP stream; the first forward waits for the first before layer 0 and for both
  // before layer 2, the second forward waits for nothing. After the passes the gradients are
  // reduce-scattered (4096 bytes) and nothing is gathered.
  ExecutionSpec e = grid(2, 1, 1, 1);
  e.global_batch = 4; // two microbatches per GPU
  e.zero = 1;
  e.param_gather_overlap = true;
  e.dp_bucket = Bytes(2048.0);
  Scenario s = scenario(ModelKind::mlp, 4, e);
  Program p = stage_program(s, 0, false);
  // Then layers 2-3 forward, 4 backward layers, the second forward and backward.
  std::string kernels;
  for (int i = 0; i < 2 + 4 + 4 + 4; ++i) kernels += "C ";
  EXPECT_EQ(shape(p), "start:dp.AG start:dp.AG waitC:1 C C waitC:2 " + kernels + "waitS dp.RS");
  EXPECT_EQ(p[0].bytes, Bytes(2048.0));
  EXPECT_EQ(p[1].bytes, Bytes(2048.0));
  EXPECT_EQ(p.back().bytes, Bytes(4096.0));
}

TEST(Program, ExpertsAreDispatchedAndCombinedByAllToAlls) {
  // Transformer layer with 2 experts over ep 2 of dp 4: the expert MLP sits between an EP
  // all-to-all dispatch and combine, both ways; attention is dense. At the end, the dense
  // (attention) gradients are all-reduced over DP, the expert gradients over EDP (dp / ep = 2
  // GPUs hold the same expert). Attention: 4 x 8 x 8 = 256 parameters, 512 bytes; the one
  // expert here: 2 x 8 x 32 = 512 parameters, 1024 bytes. Each all-to-all moves the
  // microbatch's 4 tokens x 8 x 2 bytes = 64 bytes times top_k 1.
  ExecutionSpec e = grid(4, 1, 1, 1);
  e.ep = 2;
  Scenario s = scenario(ModelKind::transformer, 1, e);
  s.model.experts = 2;
  Program p = stage_program(s, 0, false);
  ASSERT_EQ(shape(p), "C ep.A2A C ep.A2A ep.A2A C ep.A2A C waitS dp.AR edp.AR");
  EXPECT_EQ(p[1].bytes, Bytes(64.0));
  EXPECT_DOUBLE_EQ(p[9].bytes.value(), 512.0); // 1536 x (1 - 2/3): the expert share is 1024 / 1536
  EXPECT_DOUBLE_EQ(p[10].bytes.value(), 1024.0);
  // Folded, each pass's two all-to-alls are one op with a count.
  EXPECT_EQ(shape(stage_program(s, 0, true)), "C ep.A2A*2 C ep.A2A*2 waitS dp.AR edp.AR");
}

TEST(Program, FoldCountsEachDistinctCollective) {
  // Transformer, tp 2, 2 layers, one stage: per layer and direction two TP all-reduces of the
  // same size (after attention and after the MLP): 2 layers x 2 = 4 per pass, one run each.
  Scenario s = scenario(ModelKind::transformer, 2, grid(1, 2, 1, 1));
  EXPECT_EQ(shape(stage_program(s, 0, false)),
            "C tp.AR C tp.AR C tp.AR C tp.AR C tp.AR C tp.AR C tp.AR C tp.AR waitS");
  EXPECT_EQ(shape(stage_program(s, 0, true)), "C tp.AR*4 C tp.AR*4 waitS");
  // Sequence parallelism splits each all-reduce into an all-gather before the block and a
  // reduce-scatter after it: 4 of each per pass, counted separately in order of first
  // appearance; the backward gathers each block's input once more for its weight gradient: 2
  // layers x 2 blocks = 4 all-gathers more.
  s.execution.sequence_parallel = true;
  EXPECT_EQ(shape(stage_program(s, 0, true)), "C tp.AG*4 tp.RS*4 C tp.AG*8 tp.RS*4 waitS");
  // Full recomputation re-runs each layer's forward, its two all-reduces included, within the
  // backward pass: 2 layers x 2 forward, then 2 layers x (2 recomputed + 2 backward) = 8.
  s.execution.sequence_parallel = false;
  s.execution.recompute = Recompute::full;
  EXPECT_EQ(shape(stage_program(s, 0, true)), "C tp.AR*4 C tp.AR*8 waitS");
  s.execution.recompute = Recompute::none;
  // On two stages, runs end at every transfer: stage 0 (layer 0) of 2 microbatches under
  // 1F1B runs F0 F1 B0 B1, each pass one run of 2 all-reduces.
  s = scenario(ModelKind::transformer, 2, grid(1, 2, 2, 2));
  EXPECT_EQ(shape(stage_program(s, 0, true)),
            "C tp.AR*2 sendF C tp.AR*2 sendF recvB C tp.AR*2 recvB C tp.AR*2 waitS");
  // Scatter/gather sends: each received gradient is all-gathered over TP before its pass.
  s.execution.pp_scatter_gather = true;
  EXPECT_EQ(shape(stage_program(s, 0, true)), "C tp.AR*2 sendF C tp.AR*2 sendF recvB C tp.AG "
                                              "tp.AR*2 recvB C tp.AG tp.AR*2 waitS");
}

TEST(Program, FoldKeepsTheOrderOfRunsWhoseCollectivesLeaveTheNode) {
  // The simulator names the kinds whose groups span nodes; a run holding one of them keeps its
  // ops as they are, since where a collective starts among the kernels decides which other
  // groups' traffic it meets. Transformer, tp 2 and ep 2 (2 experts) over dp 2, one layer,
  // one stage: each pass is attention, its TP all-reduce, the dispatch, the expert MLP, its
  // TP all-reduce and the combine.
  ExecutionSpec e = grid(2, 2, 1, 1);
  e.ep = 2;
  Scenario s = scenario(ModelKind::transformer, 1, e);
  s.model.experts = 2;
  Program fine = stage_program(s, 0, false);
  // Folded with no kind across nodes: one compute op, then each distinct collective in order
  // of first appearance (the backward meets the combine's all-to-all first). The experts'
  // gradients need no reduction: dp / ep = 1 GPU holds each.
  EXPECT_EQ(shape(stage_program(s, 0, true)), "C tp.AR*2 ep.A2A*2 C ep.A2A*2 tp.AR*2 waitS dp.AR");
  // With the EP group across nodes, both passes keep their order: the program is fine's.
  EXPECT_EQ(shape(stage_program(s, 0, true, kinds_bit(GroupKind::ep))), shape(fine));
  // TP's all-reduces too: a TP group across nodes meets a pipeline transfer still in flight at
  // one layer's collective and not at another's.
  EXPECT_EQ(shape(stage_program(s, 0, true, kinds_bit(GroupKind::tp))), shape(fine));
  // A kind the passes do not use folds as before: DP's reductions come after the passes.
  EXPECT_EQ(shape(stage_program(s, 0, true, kinds_bit(GroupKind::dp))),
            shape(stage_program(s, 0, true)));
}

TEST(Program, RunsKeepTheirOrderOnlyWhereOutsideTrafficCanMeetThem) {
  // tp 4 x dp 2 on nodes of 2 GPUs: TP and DP groups both span nodes (and expert-DP's, DP's
  // own without experts). With one stage, no DP stream and GPUs of one speed, every rank runs
  // the same program at the same pace: nothing from outside a run meets it, and every run
  // folds.
  Scenario s = scenario(ModelKind::mlp, 2, grid(2, 4, 1, 2));
  GroupKinds across = kinds_across_nodes(s.execution, 2);
  ASSERT_EQ(across,
            kinds_bit(GroupKind::tp) | kinds_bit(GroupKind::dp) | kinds_bit(GroupKind::edp));
  auto kept = [](const Scenario& x, int gpus_per_node) {
    return kinds_kept_in_order(x, stage_program(x, 0, false), gpus_per_node);
  };
  EXPECT_EQ(kept(s, 2), 0);
  // Pipeline transfers, a stream beside the passes or unequal GPUs each bring outside traffic.
  Scenario piped = scenario(ModelKind::mlp, 2, grid(1, 4, 2, 2));
  EXPECT_EQ(kept(piped, 2), kinds_across_nodes(piped.execution, 2));
  Scenario stream = s;
  stream.execution.delayed_update = true;
  EXPECT_EQ(kept(stream, 2), across);
  Scenario uneven = s;
  uneven.model.kind = ModelKind::transformer;
  uneven.model.compute = ComputeModel::operators;
  uneven.system.gpu.speed_spread = 0.02;
  EXPECT_EQ(kept(uneven, 2), across);
  // Inside nodes of 8 no group spans two: nothing to keep.
  EXPECT_EQ(kept(stream, 8), 0);
  // The program decides, not the option's name: with dp 1 an overlapped gradient reduction
  // starts nothing beside the passes (there is nothing to reduce), so its runs fold. A TP
  // axis's overlap stream stays inside its block and brings nothing from outside either.
  Scenario alone = scenario(ModelKind::mlp, 2, grid(1, 4, 1, 2));
  alone.execution.dp_overlap = true;
  EXPECT_EQ(kept(alone, 2), 0);
  Scenario overlapped = s;
  overlapped.execution.tp_overlap = true;
  EXPECT_EQ(kept(overlapped, 2), 0);
}

TEST(Program, OperatorsAddEmbeddingHeadAndTheOptimizerStep) {
  // Per operator, with a vocabulary, one layer on each of 2 stages, one microbatch: stage 0's
  // forward opens with the embedding and its backward closes with the embedding's gradient;
  // stage 1's forward closes with the LM head and loss and its backward opens with their
  // gradients. After the passes every GPU steps the optimizer on its parameters.
  Scenario s = scenario(ModelKind::transformer, 2, grid(1, 1, 2, 1));
  s.model.compute = ComputeModel::operators;
  s.model.vocab = 16;
  Program first = stage_program(s, 0, false), last = stage_program(s, 1, false);
  ASSERT_EQ(shape(first), "C C C sendF recvB C C C waitS C");
  ASSERT_EQ(shape(last), "recvF C C C C C C sendB waitS C");
  LayerTimes t = layer_times(s);
  EXPECT_EQ(first[0].duration, embedding_time(s).forward.total());
  EXPECT_EQ(first[1].duration, t.attention.forward.total());
  EXPECT_EQ(first[7].duration, embedding_time(s).backward.total());
  EXPECT_EQ(first[9].duration, optimizer_time(s, 0).total());
  EXPECT_EQ(last[3].duration, head_time(s).forward.total());
  EXPECT_EQ(last[4].duration, head_time(s).backward.total());
  // Stage 0 holds the embedding (16 x 8 + 4 learned positions x 8 = 160 parameters), stage 1
  // the head (128): their optimizer steps differ by 32 parameters.
  EXPECT_GT(first[9].duration, last[9].duration);
}

TEST(Program, ShardedGradientsAllReduceTheirClippingNormOverDp) {
  // ZeRO-1 over dp 2, per operator, one layer, one microbatch: after the passes the gradients
  // are reduce-scattered, the shards' squared norms summed by an all-reduce of one FP32
  // scalar (4 B), then the optimizer steps and the parameters are gathered. Unsharded (ZeRO
  // 0) every replica holds the whole reduced gradient, so the norm needs no collective; nor
  // does the roofline, which has no optimizer step.
  Scenario s = scenario(ModelKind::transformer, 1, grid(2, 1, 1, 1));
  s.model.compute = ComputeModel::operators;
  s.execution.zero = 1;
  Program zero1 = stage_program(s, 0, false);
  ASSERT_EQ(shape(zero1), "C C C C waitS dp.RS dp.AR C dp.AG");
  EXPECT_EQ(zero1[6].bytes, kNormBytes);
  s.execution.zero = 0;
  EXPECT_EQ(shape(stage_program(s, 0, false)), "C C C C waitS dp.AR C");
  s.execution.zero = 1;
  s.model.compute = ComputeModel::roofline;
  EXPECT_EQ(shape(stage_program(s, 0, false)), "C C C C waitS dp.RS dp.AG");
}

TEST(Program, TheLastGradientBucketTakesTheVocabulary) {
  // dp 2, overlapped gradients in one bucket larger than everything: the single bucket
  // starts at the end of the last backward pass with the layer's gradients (attention 4 x 8 x 8
  // + MLP 2 x 8 x 32 = 768 parameters) and the embedding's (160) and head's (128): 1056
  // parameters, 2112 bytes.
  ExecutionSpec e = grid(2, 1, 1, 1);
  e.dp_overlap = true;
  Scenario s = scenario(ModelKind::transformer, 1, e);
  s.model.compute = ComputeModel::operators;
  s.model.vocab = 16;
  Program p = stage_program(s, 0, false);
  ASSERT_EQ(shape(p), "C C C C C C C C start:dp.AR waitS waitC C");
  EXPECT_EQ(p[8].bytes, Bytes(2112.0));
}

TEST(Program, Fp8ParameterGathersMoveTheLayersWeightsInFp8) {
  // dp 2, ZeRO-1, FP8 training: after the optimizer step the parameters are all-gathered.
  // The layer holds 768 parameters, the embedding 160 and the head 128 (above). At the
  // model's word (2 B, FP8 training keeps BF16 weights): (768 + 160 + 128) x 2 = 2112 B. With
  // fp8_param_gather the layer's weights go as FP8, the embedding and head as BF16:
  // tensorwise 768 x 1 + 288 x 2 = 1344 B; MXFP8 adds an E8M0 scale per 32 elements,
  // 768 x (1 + 1/32) + 576 = 1368 B.
  Scenario s = scenario(ModelKind::transformer, 1, grid(2, 1, 1, 1));
  s.model.compute = ComputeModel::operators;
  s.model.vocab = 16;
  s.model.precision = "fp8";
  s.model.fp8_recipe = Fp8Recipe::tensorwise;
  s.execution.zero = 1;
  auto gathered = [&] {
    Bytes b;
    for (const Op& op : stage_program(s, 0, false))
      if (op.kind == OpKind::collective && op.collective == CollectiveOp::all_gather) b += op.bytes;
    return b.value();
  };
  EXPECT_DOUBLE_EQ(gathered(), 2112.0);
  s.execution.fp8_param_gather = true;
  EXPECT_DOUBLE_EQ(gathered(), 1344.0);
  s.model.fp8_recipe = Fp8Recipe::mxfp8;
  EXPECT_DOUBLE_EQ(gathered(), 1368.0);
}

} // namespace
} // namespace trainsim
