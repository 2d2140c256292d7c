// What a stage's program makes of layers of more than one kind: the model's dense first layers
// beside its expert layers, and latent attention's TP collectives (models/step_program.cpp).
// Ops are written as tokens (step_program_fixtures.hpp).
#include <gtest/gtest.h>

#include <string>

#include "models/step_compute.hpp"
#include "models/step_program.hpp"

#include "step_program_fixtures.hpp"

namespace trainsim {
namespace {

using namespace program_testing;

TEST(Program, DenseLayersComeFirstWithoutExperts) {
  // Two layers, the first dense (dense_layers 1): its MLP is one kernel with no all-to-all, the
  // second's sits between the EP dispatch and combine. Backward runs the expert layer first.
  // Gradients: dense, the 2 attentions 2 x 4 x 8 x 8 = 512 parameters and the dense MLP
  // 2 x 8 x 32 = 512, 2048 bytes; experts, one layer's local expert of moe_d_ff 16,
  // 2 x 8 x 16 = 256 parameters, 512 bytes: 2560 in all, 2048 over DP and 512 over EDP.
  ExecutionSpec e = grid(4, 1, 1, 1);
  e.ep = 2;
  Scenario s = scenario(ModelKind::transformer, 2, e);
  s.model.experts = 2, s.model.moe_d_ff = 16, s.model.dense_layers = 1;
  Program p = stage_program(s, 0, false);
  ASSERT_EQ(shape(p), "C C C ep.A2A C ep.A2A ep.A2A C ep.A2A C C C waitS dp.AR edp.AR");
  EXPECT_DOUBLE_EQ(p[13].bytes.value(), 2048.0);
  EXPECT_DOUBLE_EQ(p[14].bytes.value(), 512.0);
  // The dense layer's MLP runs as a dense model's does.
  Scenario dense = scenario(ModelKind::transformer, 1, grid(4, 1, 1, 1));
  EXPECT_EQ(p[1].duration, stage_program(dense, 0, false)[1].duration);
}

TEST(Program, ExpertsUnderSequenceParallelismDispatchTheirShard) {
  // An MLP block of 2 experts, top 2, on tp 2 x ep 2 (dp 4) with sequence parallelism, one
  // microbatch of 4 tokens of d_model 8: the routed tokens are 4 x 2 x 8 x 2 B = 128 B. Each
  // TP rank sends its sequence shard's, 128 / 2 = 64 B, over EP; the TP group gathers the
  // 128 B its ranks received, the experts run, it reduce-scatters them and the result goes
  // back over EP (Megatron-Core's all-to-all dispatcher). Backward has the same shape.
  ExecutionSpec e = grid(4, 2, 1, 1);
  e.ep = 2, e.sequence_parallel = true;
  Scenario s = scenario(ModelKind::mlp, 1, e);
  s.model.experts = 2, s.model.top_k = 2;
  Program p = stage_program(s, 0, false);
  std::string passes = "ep.A2A tp.AG C tp.RS ep.A2A ep.A2A tp.AG C tp.RS ep.A2A";
  ASSERT_EQ(shape(p).substr(0, passes.size()), passes);
  EXPECT_EQ(p[0].bytes, Bytes(64.0));
  EXPECT_EQ(p[1].bytes, Bytes(128.0));
  EXPECT_EQ(p[3].bytes, Bytes(128.0));
  // A shared expert's MLP also gathers and reduce-scatters the whole input (4 x 8 x 2 B), and
  // backward gathers it once more for its weight gradient, as a dense block does.
  s.model.shared_experts = 1;
  p = stage_program(s, 0, false);
  passes = "tp.AG ep.A2A tp.AG C tp.RS ep.A2A tp.RS tp.AG tp.AG ep.A2A";
  EXPECT_EQ(shape(p).substr(0, passes.size()), passes);
  EXPECT_EQ(p[0].bytes, Bytes(64.0));
}

TEST(Program, FoldedExpertsTakeTheirShardsWithoutATpGather) {
  // The block above with 4 experts and etp 1: EP spans the TP ranks (ep 4 over tp 2 x dp 4 =
  // 8 ranks), one whole expert a rank. Each rank sends its shard's 64 B over EP and gets the
  // copies for its expert back; no TP gather or reduce-scatter. The expert gradients reduce
  // over the 8 / 4 = 2 ranks that hold the same expert.
  ExecutionSpec e = grid(4, 2, 1, 1);
  e.ep = 4, e.etp = 1, e.sequence_parallel = true;
  Scenario folded = scenario(ModelKind::mlp, 1, e);
  folded.model.experts = 4, folded.model.top_k = 2;
  Program p = stage_program(folded, 0, false);
  std::string passes = "ep.A2A C ep.A2A ep.A2A C ep.A2A";
  ASSERT_EQ(shape(p).substr(0, passes.size()), passes);
  EXPECT_EQ(p[0].bytes, Bytes(64.0));
  EXPECT_EQ(p[2].bytes, Bytes(64.0));
  EXPECT_EQ(shape(p).find("tp."), std::string::npos);
  EXPECT_EQ(folded.execution.expert_replicas(), 2);
  EXPECT_NE(shape(p).find("edp."), std::string::npos);
}

TEST(Program, ExpertsSplitOverPartOfTpGatherOverTheirOwnGroup) {
  // The folded block above on tp 4 x dp 2 with 4 experts, ep 2, etp 2: each rank routes its
  // sequence shard, 4 tokens / 4 = 1 token x top 2 x 8 x 2 B = 32 B, over EP; its ETP group
  // (2 ranks) gathers the 2 x 32 = 64 B its ranks received, the half-experts run and it
  // reduce-scatters them back before the combine. The attention's TP group (4 ranks) is not
  // what gathers. The expert gradients reduce over tp x dp / (ep x etp) = 8 / 4 = 2 ranks.
  ExecutionSpec e = grid(2, 4, 1, 1);
  e.ep = 2, e.etp = 2, e.sequence_parallel = true;
  Scenario s = scenario(ModelKind::mlp, 1, e);
  s.model.experts = 4, s.model.top_k = 2;
  Program p = stage_program(s, 0, false);
  std::string passes = "ep.A2A etp.AG C etp.RS ep.A2A ep.A2A etp.AG C etp.RS ep.A2A";
  ASSERT_EQ(shape(p).substr(0, passes.size()), passes);
  EXPECT_EQ(p[0].bytes, Bytes(32.0));
  EXPECT_EQ(p[1].bytes, Bytes(64.0));
  EXPECT_EQ(p[3].bytes, Bytes(64.0));
  EXPECT_EQ(s.execution.expert_replicas(), 2);
  EXPECT_NE(shape(p).find("edp."), std::string::npos);
}

TEST(Program, ExpertsSplitOverMoreRanksThanTpGatherOtherReplicasTokens) {
  // tp 1 x dp 4, 4 experts, ep 2, etp 2: each rank routes its own 4 tokens x top 2 x 8 x 2 B
  // = 128 B over EP (every other rank); its ETP pair, two DP replicas, gathers the 2 x 128 =
  // 256 B they received around the half-experts. No TP group and no sequence parallelism.
  ExecutionSpec e = grid(4, 1, 1, 1);
  e.ep = 2, e.etp = 2;
  Scenario s = scenario(ModelKind::mlp, 1, e);
  s.model.experts = 4, s.model.top_k = 2;
  Program p = stage_program(s, 0, false);
  std::string passes = "ep.A2A etp.AG C etp.RS ep.A2A ep.A2A etp.AG C etp.RS ep.A2A";
  ASSERT_EQ(shape(p).substr(0, passes.size()), passes);
  EXPECT_EQ(p[0].bytes, Bytes(128.0));
  EXPECT_EQ(p[1].bytes, Bytes(256.0));
  EXPECT_EQ((" " + shape(p)).find(" tp."), std::string::npos);
}

TEST(Program, ExpertsUnderContextParallelismRouteTheirPieceOfTheSequence) {
  // A transformer layer of 2 experts, top 2, under cp 2 (dp 1), ep 2: the EP group is the two
  // CP ranks of the one sequence of 4 tokens, each rank holding 2. Forward: the K/V gather and
  // attention, then the experts between the dispatch and the combine; backward the reverse,
  // the attention's gradients between the gather and the reduce-scatter. Each rank routes its
  // own 2 tokens: 2 x 2 x 8 x 2 B = 64 B (4 tokens would be 128). The dense weights reduce
  // over the dp x cp = 2 ranks; each rank holds its own expert, so no EDP reduction.
  ExecutionSpec e = grid(1, 1, 1, 1);
  e.cp = 2, e.ep = 2;
  Scenario s = scenario(ModelKind::transformer, 1, e);
  s.model.experts = 2, s.model.top_k = 2;
  Program p = stage_program(s, 0, false);
  ASSERT_EQ(shape(p), "cp.AG C ep.A2A C ep.A2A ep.A2A C ep.A2A cp.AG C cp.RS waitS dp.AR");
  EXPECT_EQ(p[2].bytes, Bytes(64.0));
  EXPECT_EQ(p[4].bytes, Bytes(64.0));
  // dp 2: four weight replicas, two EP groups of 2, each expert held by 4 / 2 = 2 ranks,
  // which reduce its gradients.
  s.execution = grid(2, 1, 1, 1);
  s.execution.cp = 2, s.execution.ep = 2;
  EXPECT_NE(shape(stage_program(s, 0, false)).find("edp.AR"), std::string::npos);
}

TEST(Program, ACapacityFactorSetsTheRowsTheAllToAllsCarry) {
  // 2 experts, top 2, ep 2, one microbatch of 4 tokens of d_model 8: 4 x 2 x 8 x 2 B = 128 B
  // routed dropless. Capacity factor 0.5: each expert keeps half its balanced share, 64 B;
  // 1.5: nothing to drop, 128 B; 1.5 padded to capacity: 1.5 x 128 = 192 B.
  ExecutionSpec e = grid(2, 1, 1, 1);
  e.ep = 2;
  Scenario s = scenario(ModelKind::mlp, 1, e);
  s.model.experts = 2, s.model.top_k = 2;
  auto dispatched = [&](double factor, bool pad) {
    s.execution.moe_capacity_factor = factor, s.execution.moe_pad_to_capacity = pad;
    Program p = stage_program(s, 0, false);
    EXPECT_EQ(shape(p).substr(0, 6), "ep.A2A");
    return p[0].bytes.value();
  };
  EXPECT_DOUBLE_EQ(dispatched(0.0, false), 128.0);
  EXPECT_DOUBLE_EQ(dispatched(0.5, false), 64.0);
  EXPECT_DOUBLE_EQ(dispatched(1.5, false), 128.0);
  EXPECT_DOUBLE_EQ(dispatched(1.5, true), 192.0);
}

TEST(Program, TheAllGatherDispatcherGathersTheGroupsTokensAndReducesTheOutputs) {
  // 2 experts, top 2, ep 2, tp 1, 4 tokens of d_model 8 per rank (64 B): each rank gathers
  // the group's 2 x 64 = 128 B of tokens and their probabilities and routing map, 4 tokens x
  // 2 experts x 5 B x 2 ranks = 80 B, runs its expert, and reduce-scatters the 128 B of
  // outputs. Backward: the same two collectives.
  ExecutionSpec e = grid(2, 1, 1, 1);
  e.ep = 2, e.moe_dispatcher = MoeDispatcher::allgather;
  Scenario s = scenario(ModelKind::mlp, 1, e);
  s.model.experts = 2, s.model.top_k = 2;
  Program p = stage_program(s, 0, false);
  std::string passes = "ep.AG C ep.RS ep.AG C ep.RS";
  ASSERT_EQ(shape(p).substr(0, passes.size()), passes);
  EXPECT_EQ(p[0].bytes, Bytes(208.0));
  EXPECT_EQ(p[2].bytes, Bytes(128.0));
}

TEST(Program, LatentAttentionGathersItsLatentsNotTheInput) {
  // tp 2 with sequence parallelism; latent attention with a query latent of 2, a key/value
  // latent of 1 and a rotary key of 1: each of the microbatch's 4 tokens gathers 4 words,
  // 4 x 4 x 2 B = 32 B, where the input would be 4 x 8 x 2 B = 64 B. The output projection
  // reduce-scatters d_model (64 B) as before. Backward gathers the output's gradient (64 B),
  // the latents again for the up projections' weight gradients (32 B), and reduce-scatters the
  // latents' gradient (32 B).
  ExecutionSpec e = grid(1, 2, 1, 1);
  e.sequence_parallel = true;
  Scenario s = scenario(ModelKind::transformer, 1, e);
  s.model.mla = {2, 1, 1, 4, 3};
  Program p = stage_program(s, 0, false);
  ASSERT_EQ(shape(p), "tp.AG C tp.RS tp.AG C tp.RS tp.AG tp.AG C tp.RS tp.AG tp.AG C tp.RS waitS");
  EXPECT_EQ(p[0].bytes, Bytes(32.0));
  EXPECT_EQ(p[2].bytes, Bytes(64.0));
  EXPECT_EQ(p[10].bytes, Bytes(64.0));
  EXPECT_EQ(p[11].bytes, Bytes(32.0));
  EXPECT_EQ(p[13].bytes, Bytes(32.0));
}

TEST(Program, BlockRecomputationRecomputesTheChunksFirstLayersOnly) {
  // Two layers, tp 2, full recomputation of the first layer of the chunk (recompute_layers 1):
  // each layer's forward is [attention, all-reduce, MLP, all-reduce]; backward runs layer 1 as
  // it would without recomputation, then layer 0's forward again (its all-reduces included)
  // before its backward.
  ExecutionSpec e = grid(1, 2, 1, 1);
  e.recompute = Recompute::full, e.recompute_layers = 1;
  Scenario s = scenario(ModelKind::transformer, 2, e);
  std::string layer = "C tp.AR C tp.AR";
  EXPECT_EQ(shape(stage_program(s, 0, false)),
            layer + " " + layer + " " + layer + " " + layer + " " + layer + " waitS");
  // Every layer recomputes without recompute_layers: one more forward.
  e.recompute_layers = 0;
  s = scenario(ModelKind::transformer, 2, e);
  EXPECT_EQ(shape(stage_program(s, 0, false)),
            layer + " " + layer + " " + layer + " " + layer + " " + layer + " " + layer + " waitS");
}

TEST(Program, EveryKthLayerRecomputationRecomputesLayersZeroKTwoK) {
  // Three layers, tp 2, every second layer of the chunk recomputed (recompute_every 2): layers
  // 0 and 2. Forward: three layers. Backward from layer 2: its forward again, its backward;
  // layer 1's backward alone; layer 0's forward again and its backward: 3 + 2 + 1 + 2 = 8.
  ExecutionSpec e = grid(1, 2, 1, 1);
  e.recompute = Recompute::full, e.recompute_every = 2;
  std::string layer = "C tp.AR C tp.AR", eight;
  for (int i = 0; i < 8; ++i) eight += layer + " ";
  EXPECT_EQ(shape(stage_program(scenario(ModelKind::transformer, 3, e), 0, false)),
            eight + "waitS");
  EXPECT_TRUE(e.recomputes(0));
  EXPECT_FALSE(e.recomputes(1));
  EXPECT_TRUE(e.recomputes(2));
}

TEST(Program, Fp8WeightCastsRunInEachChunksFirstForwardOnly) {
  // One stage of one layer, 3 microbatches, in FP8 per operator: the first forward opens the
  // layer with one kernel op of its weights' casts (BlockTime::per_step), which Transformer
  // Engine then keeps for the step's other microbatches, whose forwards are the layer's alone.
  Scenario s = scenario(ModelKind::transformer, 1, grid(1, 1, 1, 3));
  s.model.compute = ComputeModel::operators;
  s.model.fp8_recipe = Fp8Recipe::tensorwise;
  LayerTimes t = layer_times(s);
  Seconds casts = t.attention.per_step.total() + t.mlp.per_step.total();
  ASSERT_GT(casts.value(), 0.0);
  Seconds forward[3];
  for (const Op& op : stage_program(s, 0, false))
    if (op.kind == OpKind::compute && op.forward && op.layer == 0)
      forward[op.microbatch] += op.duration;
  Seconds layer = t.attention.forward.total() + t.mlp.forward.total();
  EXPECT_NEAR(forward[0].value(), (casts + layer).value(), 1e-18);
  EXPECT_NEAR(forward[1].value(), layer.value(), 1e-18);
  EXPECT_NEAR(forward[2].value(), layer.value(), 1e-18);
}

} // namespace
} // namespace trainsim
