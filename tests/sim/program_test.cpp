// What each pipeline stage's GPUs run in one step (sim/program): the op sequence of small
// scenarios, derived by hand from the schedule (models/schedule.hpp) and the layer's shape
// (docs/architecture.md, "How a step is simulated"), and what fold() makes of it.
//
// Ops are written as tokens: C compute, recvF/recvB and sendF/sendB pipeline transfers of an
// activation (F) or a gradient (B), waitS wait_sends, waitC wait_collectives (waitT on the TP
// streams, waitT:N for the first N on the first axis's, waitT2:N on the second's), and
// collectives as GROUP.OP (tp.AR, tp2.AR, dp.RS, dp.AG, ep.A2A, edp.AR, cp.AG), "start:" for a
// background one, "*N" for a count N > 1.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/step_compute.hpp"
#include "models/workload.hpp"
#include "sim/program.hpp"

namespace trainsim::sim {
namespace {

std::string collective(const Op& op) {
  static const char* const groups[] = {"tp", "dp", "ep", "edp", "cp", "tp2"};
  static const char* const ops[] = {"AR", "RS", "AG", "A2A"};
  std::string out = groups[static_cast<int>(op.group)];
  out.append(".").append(ops[static_cast<int>(op.collective)]);
  if (op.count > 1) out.append("*").append(std::to_string(op.count));
  return out;
}

std::string token(const Op& op) {
  switch (op.kind) {
  case OpKind::compute:
    return "C";
  case OpKind::weight_gradients:
    return "W";
  case OpKind::collective:
    return collective(op);
  case OpKind::start_collective:
    return std::string("start:").append(collective(op));
  case OpKind::wait_collectives:
    if (op.group == GroupKind::tp2) return "waitT2:" + std::to_string(op.count);
    if (op.group != GroupKind::tp)
      return op.count == 0 ? "waitC" : "waitC:" + std::to_string(op.count);
    return op.count == 0 ? "waitT" : "waitT:" + std::to_string(op.count);
  case OpKind::recv:
    return op.forward ? "recvF" : "recvB";
  case OpKind::send:
    return op.forward ? "sendF" : "sendB";
  case OpKind::wait_sends:
    return "waitS";
  }
  return "?";
}

std::string shape(const Program& program) {
  std::string out;
  for (const Op& op : program) {
    if (!out.empty()) out += ' ';
    out += token(op);
  }
  return out;
}

/// A tiny model (d_model 8, d_ff 32, 4 tokens per microbatch) on the default H100 figures,
/// priced as a roofline: one kernel per block (the per-operator model's extra kernels outside
/// the layers are tested on their own below).
Scenario scenario(ModelKind kind, int layers, const ExecutionSpec& e) {
  Scenario s;
  s.model.kind = kind;
  s.model.compute = ComputeModel::roofline;
  s.model.layers = layers;
  s.model.d_model = 8;
  s.model.d_ff = 32;
  s.model.heads = 2;
  s.model.seq_len = 4;
  s.execution = e;
  return s;
}

ExecutionSpec grid(int dp, int tp, int pp, long microbatches) {
  ExecutionSpec e;
  e.dp = dp, e.tp = tp, e.pp = pp;
  e.global_batch = dp * microbatches;
  return e;
}

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
  // Folded: the four kernels are one run, so one compute op of 3 x (attention + MLP).
  s.execution.recompute = Recompute::none;
  Program folded = stage_program(s, 0, true);
  ASSERT_EQ(shape(folded), "C waitS");
  EXPECT_DOUBLE_EQ(folded[0].duration.value(), (3.0 * (attention + mlp)).value());
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
  // Folding merges only what lies between two transfers: stage 1's forward and backward of
  // one microbatch become one compute op.
  EXPECT_EQ(shape(stage_program(s, 1, true)), "recvF C sendB recvF C sendB waitS");
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
  // A bucket start ends a run: the forward and the first two backward layers fold into one
  // compute op, the last two into another.
  EXPECT_EQ(shape(stage_program(s, 0, true)), "C start:dp.AR C start:dp.AR waitS waitC");
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
  // passes. Unfolded and folded alike, the starts come before every kernel.
  ExecutionSpec e = grid(2, 1, 1, 1);
  e.zero = 1;
  e.delayed_update = true;
  Scenario s = scenario(ModelKind::mlp, 4, e);
  Program p = stage_program(s, 0, false);
  EXPECT_EQ(shape(p), "start:dp.RS start:dp.AG C C C C C C C C waitS waitC");
  EXPECT_EQ(p[0].bytes, Bytes(4096.0));
  EXPECT_EQ(p[1].bytes, Bytes(4096.0));
  EXPECT_EQ(shape(stage_program(s, 0, true)), "start:dp.RS start:dp.AG C waitS waitC");
  // Without ZeRO, one all-reduce.
  s.execution.zero = 0;
  EXPECT_EQ(shape(stage_program(s, 0, true)), "start:dp.AR C waitS waitC");
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
  // Folded, the four all-to-alls are one op with a count.
  EXPECT_EQ(shape(stage_program(s, 0, true)), "C ep.A2A*4 waitS dp.AR edp.AR");
}

TEST(Program, FoldCountsEachDistinctCollective) {
  // Transformer, tp 2, 2 layers, one stage: per layer and direction two TP all-reduces of the
  // same size (after attention and after the MLP): 2 layers x 2 x 2 directions = 8, one run.
  Scenario s = scenario(ModelKind::transformer, 2, grid(1, 2, 1, 1));
  EXPECT_EQ(shape(stage_program(s, 0, false)),
            "C tp.AR C tp.AR C tp.AR C tp.AR C tp.AR C tp.AR C tp.AR C tp.AR waitS");
  EXPECT_EQ(shape(stage_program(s, 0, true)), "C tp.AR*8 waitS");
  // Sequence parallelism splits each all-reduce into an all-gather before the block and a
  // reduce-scatter after it: 8 of each, counted separately in order of first appearance; the
  // backward gathers each block's input once more for its weight gradient: 2 layers x 2
  // blocks = 4 all-gathers more.
  s.execution.sequence_parallel = true;
  EXPECT_EQ(shape(stage_program(s, 0, true)), "C tp.AG*12 tp.RS*8 waitS");
  // Full recomputation re-runs each layer's forward, its two all-reduces included: 2 layers x
  // (2 forward + 2 recomputed + 2 backward) = 12.
  s.execution.sequence_parallel = false;
  s.execution.recompute = Recompute::full;
  EXPECT_EQ(shape(stage_program(s, 0, true)), "C tp.AR*12 waitS");
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

TEST(Program, TpOverlapPipelinesEachBlocksKernelWithItsCollective) {
  // tp_overlap splits a block's kernel and its all-reduce in tp_overlap_chunks k (4, TE's
  // default, then 2): each kernel chunk starts its chunk of the collective (bytes / k) on the
  // TP stream, and the block ends by waiting for all of them. One MLP layer: forward, then
  // backward, one block each. The backward (two roofline kernels: input and weight gradients
  // of two equal matmuls) leaves the first matmul's weight gradient (half a kernel) out of its
  // chunks: it follows them, beside the collective's last chunk. Folded, each pass is one
  // pipeline of k chunks: one layer folds to its own program.
  for (int k : {4, 2}) {
    ExecutionSpec e = grid(1, 2, 1, 1);
    e.tp_overlap = true;
    e.tp_overlap_chunks = k;
    Scenario s = scenario(ModelKind::mlp, 1, e);
    std::string block = "C start:tp.AR";
    for (int j = 1; j < k; ++j) block += " C start:tp.AR";
    Program p = stage_program(s, 0, false);
    ASSERT_EQ(shape(p), block + " waitT " + block + " W waitT waitS");
    LayerCosts c = layer_costs(s.model, s.execution);
    const double kernel = kernel_time(c.mlp, s.system.gpu).value();
    EXPECT_DOUBLE_EQ(p[0].duration.value(), kernel / k);
    EXPECT_EQ(p[1].bytes, c.tp_allreduce / static_cast<double>(k));
    const auto backward = static_cast<size_t>(2 * k + 1), weights = backward + 2 * k;
    EXPECT_DOUBLE_EQ(p[backward].duration.value(), 1.5 * kernel / k); // (2 - 0.5 kernels) / k
    EXPECT_DOUBLE_EQ(p[weights].duration.value(), 0.5 * kernel);      // up's weight gradient
    EXPECT_EQ(shape(stage_program(s, 0, true)), shape(p));
  }
  // Sequence parallelism over tp 4, 4 chunks (Transformer Engine's ring exchange, one chunk
  // per shard): the all-gathers before the kernel go first; the kernel's first chunk runs on
  // the GPU's own shard, chunk j waits for the gathers' first j chunks
  // (gathered_chunks_needed: ceil(j + 1 - 4 / 4) = j; the backward gathers twice: 2 per
  // chunk).
  Scenario s = scenario(ModelKind::mlp, 1, grid(1, 4, 1, 1));
  s.execution.tp_overlap = s.execution.sequence_parallel = true;
  Program p = stage_program(s, 0, false);
  const std::string gathers = "start:tp.AG start:tp.AG start:tp.AG start:tp.AG";
  const std::string forward = gathers + " C start:tp.RS waitT:1 C start:tp.RS waitT:2 C start:tp.RS"
                                        " waitT:3 C start:tp.RS waitT";
  ASSERT_EQ(shape(p).rfind(forward + " " + gathers + " " + gathers + " C start:tp.RS waitT:2 C", 0),
            0u)
      << shape(p);
  // Folded, each pass's kernels are one pipeline of 4 chunks, as one block's: the gathers'
  // shares first (forward 4 all-gathers, backward 4 of two each, one stream entry a chunk),
  // chunk j waiting for j of them, each followed by its reduce-scatter's share; then the
  // backward's weight gradient.
  const std::string ag2 = "start:tp.AG*2 start:tp.AG*2 start:tp.AG*2 start:tp.AG*2";
  const std::string backward =
      ag2 + " C start:tp.RS waitT:1 C start:tp.RS waitT:2 C start:tp.RS waitT:3 C start:tp.RS";
  EXPECT_EQ(shape(stage_program(s, 0, true)), forward + " " + backward + " W waitT waitS");
  // Over tp 2 the GPU holds half the input: chunks 0 and 1 run on it, 2 and 3 wait for the
  // gathers' first 1 and 2 chunks (ceil(j + 1 - 4 / 2)).
  s = scenario(ModelKind::mlp, 1, grid(1, 2, 1, 1));
  s.execution.tp_overlap = s.execution.sequence_parallel = true;
  EXPECT_EQ(
      shape(stage_program(s, 0, false))
          .rfind(
              gathers +
                  " C start:tp.RS C start:tp.RS waitT:1 C start:tp.RS waitT:2 C start:tp.RS waitT",
              0),
      0u);
}

TEST(Program, AKernelChunkWaitsForTheGatheredRowsBeyondItsOwnShard) {
  // Chunk j of k covers the gathered input up to (j + 1) / k, the GPU holds 1 / ranks, each
  // gather chunk brings 1 / k: ceil(j + 1 - k / ranks) chunks, at least 0.
  using detail::gathered_chunks_needed;
  EXPECT_EQ(gathered_chunks_needed(0, 1, 8), 1); // one chunk: the whole gather first
  EXPECT_EQ(gathered_chunks_needed(0, 4, 8), 1); // ceil(1 - 0.5)
  EXPECT_EQ(gathered_chunks_needed(3, 4, 8), 4); // ceil(4 - 0.5)
  EXPECT_EQ(gathered_chunks_needed(2, 4, 4), 2); // ring exchange: j
  EXPECT_EQ(gathered_chunks_needed(1, 8, 4), 0); // ceil(2 - 2): its own rows
  EXPECT_EQ(gathered_chunks_needed(7, 8, 4), 6); // ceil(8 - 2)
}

TEST(Program, TwoDimensionalTpReducesTheHiddenActivationBetweenTheMatmuls) {
  // tp 2 x tp_2d 2, one MLP layer: the block's kernel in two halves (up, down), the hidden
  // activation all-reduced over tp_2d between them and the output over tp after; backward
  // the same shape (down's gradients, tp_2d, up's, tp).
  ExecutionSpec e = grid(1, 2, 1, 1);
  e.tp_2d = 2;
  Scenario s = scenario(ModelKind::mlp, 1, e);
  Program p = stage_program(s, 0, false);
  ASSERT_EQ(shape(p), "C tp2.AR C tp.AR C tp2.AR C tp.AR waitS");
  LayerCosts c = layer_costs(s.model, s.execution);
  EXPECT_DOUBLE_EQ(p[0].duration.value(), kernel_time(c.mlp, s.system.gpu).value() / 2);
  EXPECT_EQ(p[1].bytes, c.tp2_allreduce);
  EXPECT_EQ(p[3].bytes, c.tp_allreduce);
  // Overlapped: up's chunks start their chunks of the hidden all-reduce; each chunk of down
  // waits for its own (the first 1, 2, 3, 4 on the second axis's stream) and starts its
  // chunk of the output's all-reduce on the first axis's; the block waits for both. Backward, up's
  // weight gradient follows the chunks of its gradients (the last kernel), beside the output's
  // all-reduce.
  s.execution.tp_overlap = true;
  p = stage_program(s, 0, false);
  const std::string first = "C start:tp2.AR C start:tp2.AR C start:tp2.AR C start:tp2.AR";
  const std::string second =
      "waitT2:1 C start:tp.AR waitT2:2 C start:tp.AR waitT2:3 C start:tp.AR waitT2:4 C start:tp.AR";
  ASSERT_EQ(shape(p), first + " " + second + " waitT " + first + " " + second + " W waitT waitS");
  // Folded, a pass is one block's pipeline: the kernels that start the hidden all-reduce (up,
  // forward; down's gradients, backward) in 4 chunks, then the rest, chunk j waiting for the
  // hidden all-reduce's first j + 1 shares. One layer folds to its own program.
  EXPECT_EQ(shape(stage_program(s, 0, true)), shape(p));
  // Two layers: the same shape, each share two collectives, each chunk two kernels' chunks.
  s.model.layers = 2;
  const std::string first2 = "C start:tp2.AR*2 C start:tp2.AR*2 C start:tp2.AR*2 C start:tp2.AR*2";
  const std::string second2 = "waitT2:1 C start:tp.AR*2 waitT2:2 C start:tp.AR*2 waitT2:3 C "
                              "start:tp.AR*2 waitT2:4 C start:tp.AR*2";
  EXPECT_EQ(shape(stage_program(s, 0, true)),
            first2 + " " + second2 + " waitT " + first2 + " " + second2 + " W waitT waitS");
}

} // namespace
} // namespace trainsim::sim
