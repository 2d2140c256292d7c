// The shared cost basis (models/workload.hpp) in the real-valued form the frontier prices
// from: passes and layers, two TP axes, fractional tokens, parameters by reduction group.
#include "models/workload.hpp"

#include <gtest/gtest.h>

#include "models/operators.hpp"
#include "models/step_compute.hpp"

namespace trainsim {
namespace {

// d = 1000, d_ff = 4000, BF16, one expert, 10 tokens per microbatch: round numbers.
LayerShape mlp_block() {
  LayerShape l;
  l.kind = ModelKind::mlp;
  l.d_model = 1000;
  l.d_ff = 4000;
  return l;
}

// Four MLP blocks of the same d = 1000 and d_ff = 4000, 10 tokens a sequence.
ModelSpec four_mlp_blocks() {
  ModelSpec m;
  m.kind = ModelKind::mlp;
  m.layers = 4, m.d_model = 1000, m.d_ff = 4000, m.heads = 1, m.seq_len = 10;
  return m;
}

GpuShare share(double tokens, int tp_1d, int tp_2d = 1, int ep = 1) {
  return {tokens, tp_1d, tp_2d, ep};
}

TEST(Workload, MlpCostScalesWithPassesAndLayers) {
  // tp 2. One forward through one layer: 2 matmuls x 2 FLOP x 10 tokens x 1000 x 4000 / 2
  // = 8e7 FLOP. HBM: weights 2 x 1000 x 4000 words x 2 B / 2 = 8e6 B; activations, up reads
  // 10 x 1000 and writes 10 x 4000, down the reverse: 1e5 words x 2 B / 2 = 1e5 B.
  LayerShape l = mlp_block();
  KernelCost one = mlp_cost(l, share(10, 2));
  EXPECT_DOUBLE_EQ(one.flop.value(), 8e7);
  EXPECT_DOUBLE_EQ(one.hbm.value(), 8.1e6);
  // Forward + backward (3 passes) through 5 layers: 15 x 8e7 FLOP; every pass reads the
  // weights again: 15 x 8e6 + 15 x 1e5 B.
  KernelCost stage = mlp_cost(l, share(10, 2), 3, 5);
  EXPECT_DOUBLE_EQ(stage.flop.value(), 1.2e9);
  EXPECT_DOUBLE_EQ(stage.hbm.value(), 1.215e8);
  // layer_costs() prices one forward of one layer the same way.
  EXPECT_EQ(layer_costs(l, share(10, 2)).mlp.flop, one.flop);
  // At 1e12 FLOP/s x 0.5 sustained, 1.2e9 FLOP take 2.4 ms; 1.215e8 B at 1e12 B/s 121.5 us.
  GpuSpec gpu;
  gpu.peak = FlopPerSecond(1e12), gpu.matmul_efficiency = 0.5,
  gpu.hbm_bandwidth = BytesPerSecond(1e12);
  EXPECT_DOUBLE_EQ(compute_time(stage.flop, gpu).value(), 2.4e-3);
  EXPECT_DOUBLE_EQ(hbm_time(stage.hbm, gpu).value(), 1.215e-4);
}

TEST(Workload, TwoTensorParallelAxesSplitEveryMatrixByTheirProduct) {
  // N_K = 2 x N_J = 4 splits each matrix 8 ways, like one axis of 8: 4 x 10 x 4e6 / 8 = 2e7
  // FLOP, 2 x 4e6 x 2 B / 8 = 2e6 B of weights; the per-GPU costs do not tell the axes apart.
  LayerShape l = mlp_block();
  LayerCosts two_axes = layer_costs(l, share(10, 2, 4)), one_axis = layer_costs(l, share(10, 8));
  EXPECT_DOUBLE_EQ(two_axes.mlp.flop.value(), 2e7);
  EXPECT_EQ(two_axes.mlp.flop, one_axis.mlp.flop);
  EXPECT_EQ(two_axes.mlp.hbm, one_axis.mlp.hbm);
  EXPECT_DOUBLE_EQ(two_axes.params, 1e6);
  EXPECT_EQ(two_axes.tp_allreduces, 1);
}

TEST(Workload, TwoDimensionalTpReducesAColumnShareOverEachAxis) {
  // tp 2 (N_K), tp_2d 4 (N_J), 10 tokens, BF16: a GPU holds 1000 / 4 = 250 of the layer's
  // d_model columns, all-reduced over tp: 10 x 250 x 2 B = 5e3 B; and 4000 / 2 = 2000 of
  // the hidden d_ff columns, all-reduced over tp_2d: 10 x 2000 x 2 B = 4e4 B. One axis of 8
  // reduces all 1000 columns over tp and has no hidden all-reduce.
  LayerShape l = mlp_block();
  LayerCosts two_axes = layer_costs(l, share(10, 2, 4)), one_axis = layer_costs(l, share(10, 8));
  EXPECT_DOUBLE_EQ(two_axes.tp_allreduce.value(), 5e3);
  EXPECT_DOUBLE_EQ(two_axes.tp2_allreduce.value(), 4e4);
  EXPECT_DOUBLE_EQ(one_axis.tp_allreduce.value(), 2e4);
  EXPECT_DOUBLE_EQ(one_axis.tp2_allreduce.value(), 0.0);
  // tp 1, tp_2d 2: no all-reduce over the first axis, the hidden one over the second.
  LayerCosts second_only = layer_costs(l, share(10, 1, 2));
  EXPECT_EQ(second_only.tp_allreduces, 0);
  EXPECT_DOUBLE_EQ(second_only.tp2_allreduce.value(), 10 * 4000 * 2.0);
}

TEST(Workload, ASetHeadWidthSizesTheAttentionWeights) {
  // Qwen3 30B-A3B's attention (its Hugging Face config.json, as public copies of it in
  // conversion tests give it: hidden_size 2048, 32 heads, 4 KV heads, head_dim 128; an
  // expert's moe_intermediate_size 768 as d_ff): q_proj 2048 x 4096, k_proj and v_proj 2048 x 512
  // each, o_proj 4096 x 2048: 8,388,608 + 2 x 1,048,576 + 8,388,608 = 18,874,368 parameters, where
  // d_model / heads = 64 would give 2048 x (2048 + 2 x 256) + 2048 x 2048 = 9,437,184.
  ModelSpec m;
  m.d_model = 2048;
  m.heads = 32;
  m.kv_heads = 4;
  m.d_ff = 768;
  m.seq_len = 4096;
  ExecutionSpec e;
  double mlp = 2.0 * 2048 * 768; // up and down, not gated
  EXPECT_DOUBLE_EQ(layer_costs(m, e).params, 9437184 + mlp);
  m.head_dim = 128;
  EXPECT_DOUBLE_EQ(layer_costs(m, e).params, 18874368 + mlp);
}

TEST(Workload, ParametersByTheGroupThatReducesThem) {
  // Transformer, 8 experts over ep 4, tp 2, 3 layers. Attention 4 x 1000^2 = 4e6 per layer,
  // / 2 x 3 = 6e6, dense; 8 / 4 = 2 experts x 2 x 1000 x 4000 = 1.6e7 per layer, / 2 x 3 =
  // 2.4e7, reduced over the dp / ep ranks holding them.
  LayerShape l = mlp_block();
  l.kind = ModelKind::transformer;
  l.experts = 8;
  GpuParams p = params_on_gpu(l, share(10, 2, 1, 4), 3);
  EXPECT_DOUBLE_EQ(p.dense, 6e6);
  EXPECT_DOUBLE_EQ(p.experts, 2.4e7);
  // ep 1: every DP rank holds all 8 experts, so they are reduced over DP with the attention:
  // 6e6 + 3 x 8 x 8e6 / 2 = 1.02e8.
  GpuParams replicated = params_on_gpu(l, share(10, 2), 3);
  EXPECT_DOUBLE_EQ(replicated.dense, 1.02e8);
  EXPECT_DOUBLE_EQ(replicated.experts, 0.0);
}

TEST(Workload, SharedExpertsRunOnEveryTokenAndStayDense) {
  // 8 experts of d_ff 4000 over ep 4, top 2, plus 1 shared expert of the same size, tp 2, 10
  // tokens. Routed: 2 matmuls x 2 FLOP x (10 x 2) rows x 1000 x 4000 / 2 = 1.6e8 FLOP; shared:
  // the same on 10 rows, 8e7; 2.4e8 in all. Weights read: 2 local routed experts and the shared
  // one, 3 x 8e6 params / 2 = 1.2e7 words, 2.4e7 B; activations (20 + 10 rows) x (1000 + 4000)
  // x 2 words x 2 B / 2 = 3e5 B.
  LayerShape l = mlp_block();
  l.experts = 8;
  l.top_k = 2;
  l.shared_ff = 4000;
  KernelCost one = mlp_cost(l, share(10, 2, 1, 4));
  EXPECT_DOUBLE_EQ(one.flop.value(), 2.4e8);
  EXPECT_DOUBLE_EQ(one.hbm.value(), 2.4e7 + 3e5);
  // Every EP rank holds the shared expert, reduced over all of DP: 8e6 / 2 = 4e6 dense; the
  // routed ones 2 x 8e6 / 2 = 8e6 over the ranks holding them.
  GpuParams p = params_on_gpu(l, share(10, 2, 1, 4));
  EXPECT_DOUBLE_EQ(p.dense, 4e6);
  EXPECT_DOUBLE_EQ(p.experts, 8e6);
  // A token touches its 2 routed experts and the shared one: 3 x 8e6 / 2 = 1.2e7 per GPU.
  EXPECT_DOUBLE_EQ(layer_costs(l, share(10, 2, 1, 4)).active_params, 1.2e7);
}

TEST(Workload, AnExpertsOwnInnerSizeSetsTheSharedExpertsToo) {
  // moe_d_ff 1000 beside a dense d_ff 4000: each of 4 experts and the 2 shared ones is
  // 2 x 1000 x 1000 = 2e6 parameters (an MLP block, 2 layers): 2 x (4 + 2) x 2e6 = 2.4e7 in
  // all, 2 x (top 1 + 2) x 2e6 = 1.2e7 active.
  ModelSpec m;
  m.kind = ModelKind::mlp;
  m.layers = 2, m.d_model = 1000, m.d_ff = 4000, m.heads = 1, m.seq_len = 1;
  m.experts = 4, m.moe_d_ff = 1000, m.shared_experts = 2;
  EXPECT_DOUBLE_EQ(layer_shape(m).d_ff, 1000);
  EXPECT_DOUBLE_EQ(layer_shape(m).shared_ff, 2000);
  ModelParameters p = model_parameters(m);
  EXPECT_DOUBLE_EQ(p.total, 2.4e7);
  EXPECT_DOUBLE_EQ(p.active, 1.2e7);
}

TEST(Workload, DenseLayersHoldAndComputeTheDenseMlp) {
  // MLP blocks, 3 layers of d_model 1000: the first dense of d_ff 4000 (8e6 parameters), two
  // of 4 experts of moe_d_ff 1000 (2e6 each), top 1. Total 8e6 + 2 x 4 x 2e6 = 2.4e7; active
  // 8e6 + 2 x 2e6 = 1.2e7. FLOP per token: forward 2 per active parameter, 2.4e7, and 3 x that
  // with the backward: 7.2e7.
  ModelSpec m;
  m.kind = ModelKind::mlp;
  m.layers = 3, m.d_model = 1000, m.d_ff = 4000, m.heads = 1, m.seq_len = 1;
  m.experts = 4, m.moe_d_ff = 1000, m.dense_layers = 1;
  ModelParameters p = model_parameters(m);
  EXPECT_DOUBLE_EQ(p.total, 2.4e7);
  EXPECT_DOUBLE_EQ(p.active, 1.2e7);
  Scenario s;
  s.model = m;
  s.execution.dp = 4, s.execution.ep = 4, s.execution.global_batch = 8;
  EXPECT_DOUBLE_EQ(model_flop_per_step(m, s.execution).value() / tokens_per_step(m, s.execution),
                   7.2e7);
  // Over ep 4 a GPU holds one expert of each expert layer, 2 x 2e6, reduced over EDP; the
  // dense layer's 8e6 over all of DP: 1.6e7 B and 8e6 B of BF16 gradients.
  GradientBytes g = gradient_bytes(s, 0);
  EXPECT_DOUBLE_EQ(g.dense.value(), 1.6e7);
  EXPECT_DOUBLE_EQ(g.experts.value(), 8e6);
}

TEST(Workload, WindowedAndFullLayersAreEachPricedAsTheyAre) {
  // 2 layers (d_model 8, 2 heads, 4 tokens, one sequence a step) with a window of 2 and full
  // attention every 2nd layer: layer 0 windowed, layer 1 full. Model FLOP count the scores in
  // full over the keys a query may see: 4 x 4 tokens x 2 x 8 = 256 in the windowed layer
  // against 4 x 4 x 4 x 8 = 512 in a full one; forward and backward, 3 x 256 = 768 fewer than
  // without the window.
  ModelSpec m;
  m.layers = 2, m.d_model = 8, m.d_ff = 32, m.heads = 2, m.seq_len = 4;
  ExecutionSpec e;
  Flop full = model_flop_per_step(m, e);
  m.window = 2, m.full_attention_every = 2;
  EXPECT_EQ(layer_kind(m, 0), (LayerKind{false, false}));
  EXPECT_EQ(layer_kind(m, 1), (LayerKind{false, true}));
  EXPECT_EQ(layer_kinds(m).size(), 2u);
  EXPECT_DOUBLE_EQ(model_flop_per_step(m, e).value(), full.value() - 768);
}

TEST(Workload, BlockRecomputationKeepsOnlyItsLayersInputs) {
  // MLP blocks, 4 layers of d_model 1000 and d_ff 4000, 10 tokens a microbatch, one stage with
  // one microbatch in flight. A recomputed layer keeps its input, 10 x 1000 x 2 B = 2e4 B; the
  // others their input and hidden activation, 10 x (1000 + 2 x 4000) x 2 B = 1.8e5 B. The first
  // of the 4 recomputed: 2e4 + 3 x 1.8e5 = 5.6e5 B, against 4 x 2e4 = 8e4 B for all of them.
  ModelSpec m = four_mlp_blocks();
  ExecutionSpec e;
  e.recompute = Recompute::full;
  EXPECT_DOUBLE_EQ(memory_per_stage(m, e, GpuSpec{})[0].activations.value(), 8e4);
  e.recompute_layers = 1;
  EXPECT_DOUBLE_EQ(memory_per_stage(m, e, GpuSpec{})[0].activations.value(), 5.6e5);
}

TEST(Workload, EveryKthLayerRecomputationKeepsTheOthersActivations) {
  // The 4 MLP blocks of the test above, every third recomputed (recompute_every 3): layers 0
  // and 3 keep their input, 2 x 2e4 B, layers 1 and 2 everything, 2 x 1.8e5 B: 4e5 B. Their
  // forward runs again: 2 x 1.6e8 FLOP more (the test below derives a layer's 1.6e8).
  ModelSpec m = four_mlp_blocks();
  ExecutionSpec e;
  e.recompute = Recompute::full;
  e.recompute_every = 3;
  EXPECT_DOUBLE_EQ(memory_per_stage(m, e, GpuSpec{})[0].activations.value(), 4e5);
  StepFlop f = step_flop(m, e);
  EXPECT_DOUBLE_EQ((f.hardware - f.model).value(), 3.2e8);
}

TEST(Workload, BlockRecomputationRunsItsLayersForwardAgain) {
  // The same 4 MLP blocks, one sequence a step: a forward is 2 x 10 x 2 x 1000 x 4000 = 1.6e8
  // FLOP a layer. Full recomputation of every layer adds 4 x 1.6e8 hardware FLOP, of the first
  // layer only 1.6e8.
  ModelSpec m = four_mlp_blocks();
  ExecutionSpec e;
  e.recompute = Recompute::full;
  StepFlop all = step_flop(m, e);
  EXPECT_DOUBLE_EQ((all.hardware - all.model).value(), 6.4e8);
  e.recompute_layers = 1;
  StepFlop first = step_flop(m, e);
  EXPECT_DOUBLE_EQ((first.hardware - first.model).value(), 1.6e8);
}

TEST(Workload, Fp8RecipesQuantizeEveryLinearLayersOperands) {
  // The tiny layer (d_model 8, 2 heads, d_ff 32, 4 tokens) in FP8. Its QKV GEMM takes 4 x 8
  // inputs (32 elements quantized forward) and an 8 x 24 weight (192, cast), and its 4 x 24
  // output gradient backward, 96. Tensorwise moves 6 B an element (amax read, cast read,
  // two one-byte copies): 192 B, 1152 B and 576 B; MXFP8 2 + 1 + 1 + 2 / 32 = 4.0625 B.
  ModelSpec m;
  m.layers = 1, m.d_model = 8, m.d_ff = 32, m.heads = 2, m.seq_len = 4;
  m.fp8_recipe = Fp8Recipe::tensorwise;
  LayerOperators layer = layer_operators(m, ExecutionSpec{});
  // Before the QKV GEMM (after the norm): its input's quantization, then its weight's cast.
  EXPECT_STREQ(layer.attention.forward[1].name, "fp8_quantize");
  EXPECT_DOUBLE_EQ(layer.attention.forward[1].bytes.value(), 32 * 6.0);
  EXPECT_STREQ(layer.attention.forward[2].name, "fp8_weight_cast");
  EXPECT_DOUBLE_EQ(layer.attention.forward[2].bytes.value(), 192 * 6.0);
  EXPECT_STREQ(layer.attention.backward[1].name, "fp8_quantize_grad");
  EXPECT_DOUBLE_EQ(layer.attention.backward[1].bytes.value(), 96 * 6.0);
  m.fp8_recipe = Fp8Recipe::mxfp8;
  layer = layer_operators(m, ExecutionSpec{});
  EXPECT_DOUBLE_EQ(layer.attention.forward[1].bytes.value(), 32 * 4.0625);
  EXPECT_DOUBLE_EQ(layer.attention.forward[2].bytes.value(), 192 * 4.0625);
  EXPECT_DOUBLE_EQ(layer.attention.backward[1].bytes.value(), 96 * 4.0625);
  // Delayed scaling takes its scale from the amax history: one read, two one-byte copies, 4 B.
  m.fp8_recipe = Fp8Recipe::delayed;
  layer = layer_operators(m, ExecutionSpec{});
  EXPECT_DOUBLE_EQ(layer.attention.forward[1].bytes.value(), 32 * 4.0);
  EXPECT_DOUBLE_EQ(layer.attention.backward[1].bytes.value(), 96 * 4.0);
}

TEST(Workload, Fp8WeightsAreCastOnceAStepUnlessZeroThreeGathersThemAgain) {
  // Transformer Engine caches a weight's FP8 cast across the step's microbatches: the cast is a
  // per-step kernel, which neither full recomputation nor the forward's time repeats. Under
  // ZeRO-3 the weights are gathered again each microbatch, and cast again with them.
  ModelSpec m;
  m.layers = 1, m.d_model = 8, m.d_ff = 32, m.heads = 2, m.seq_len = 4;
  m.fp8_recipe = Fp8Recipe::tensorwise;
  ExecutionSpec e;
  e.recompute = Recompute::full;
  LayerOperators layer = layer_operators(m, e);
  EXPECT_TRUE(layer.attention.forward[2].per_step);
  for (const Operator& op : layer.attention.backward)
    EXPECT_STRNE(op.name, "fp8_weight_cast"); // the recomputed forward reuses the cast
  e.zero = 3;
  layer = layer_operators(m, e);
  EXPECT_FALSE(layer.attention.forward[2].per_step);
}

TEST(Workload, MemoryOfAFractionalShare) {
  // The frontier's search prices 2.5 tokens per microbatch: 2 layers, 3 microbatches in
  // flight, ZeRO-1 over dp 4. Params 2 x 2 x 1000 x 4000 = 1.6e7: weights and gradients
  // 3.2e7 B each, optimizer 12 x 1.6e7 / 4 = 4.8e7 B; activations (input and hidden)
  // 2.5 x (1000 + 2 x 4000) x 2 B x 2 layers x 3 = 2.7e5 B.
  StageResidency r;
  r.layers = 2, r.in_flight = 3, r.dp = 4, r.zero = 1;
  MemoryUse use = memory_use(mlp_block(), share(2.5, 1), r);
  EXPECT_DOUBLE_EQ(use.weights.value(), 3.2e7);
  EXPECT_DOUBLE_EQ(use.gradients.value(), 3.2e7);
  EXPECT_DOUBLE_EQ(use.optimizer.value(), 4.8e7);
  EXPECT_DOUBLE_EQ(use.activations.value(), 2.7e5);
  EXPECT_DOUBLE_EQ(use.total().value(), 1.1227e8);
}

TEST(Workload, ADelayedUpdateKeepsASecondWholeGradientBuffer) {
  // The previous step's gradients wait for their reduction while the next accumulate: one more
  // unsharded copy, 2 x 2 x 1000 x 4000 x 2 B = 3.2e7 B, on top of ZeRO-2's shard
  // 3.2e7 / 4 = 8e6 B.
  StageResidency r;
  r.layers = 2, r.in_flight = 3, r.dp = 4, r.zero = 2;
  r.delayed_update = true;
  EXPECT_DOUBLE_EQ(memory_use(mlp_block(), share(2.5, 1), r).gradients.value(), 8e6 + 3.2e7);
}

TEST(Workload, ZeroShardsExpertStateOverTheRanksHoldingIt) {
  // MLP block of 8 experts over ep 4 on dp 8, ZeRO-2, one layer, tp 1: the GPU holds 2
  // experts x 8e6 = 1.6e7 parameters, and only dp / ep = 2 ranks hold the same two, so
  // gradients are 1.6e7 x 2 B / 2 = 1.6e7 B and the optimizer 12 x 1.6e7 / 2 = 9.6e7 B (not
  // / 8, which would assume every DP rank held them). Weights are not sharded: 3.2e7 B.
  LayerShape l = mlp_block();
  l.experts = 8;
  StageResidency r;
  r.dp = 8, r.zero = 2, r.in_flight = 0;
  MemoryUse moe = memory_use(l, share(10, 1, 1, 4), r);
  EXPECT_DOUBLE_EQ(moe.weights.value(), 3.2e7);
  EXPECT_DOUBLE_EQ(moe.gradients.value(), 1.6e7);
  EXPECT_DOUBLE_EQ(moe.optimizer.value(), 9.6e7);
  // A transformer's attention (4e6 parameters) stays dense, over all 8: 12 x 4e6 / 8 = 6e6 B more.
  l.kind = ModelKind::transformer;
  EXPECT_DOUBLE_EQ(memory_use(l, share(10, 1, 1, 4), r).optimizer.value(), 9.6e7 + 6e6);
}

TEST(Workload, ContextParallelismSplitsActivationsAndShardsOverItsRanks) {
  // A GPT layer (d 1024, 16 heads, seq 4096, 2 sequences of which one per microbatch) on dp 1,
  // with ZeRO-1: cp 2 gives each rank 2048 of the 4096 tokens, so the activations halve; the
  // optimizer state is sharded over the 2 CP ranks, which hold the same weights (dp x cp = 2).
  ModelSpec m;
  m.layers = 1, m.d_model = 1024, m.d_ff = 4096, m.heads = 16, m.seq_len = 4096;
  ExecutionSpec e;
  e.global_batch = 2, e.zero = 1;
  MemoryUse whole = memory_per_gpu(m, e, GpuSpec{});
  e.cp = 2;
  MemoryUse split = memory_per_gpu(m, e, GpuSpec{});
  EXPECT_DOUBLE_EQ(split.activations.value(), whole.activations.value() / 2);
  EXPECT_DOUBLE_EQ(split.optimizer.value(), whole.optimizer.value() / 2);
  EXPECT_DOUBLE_EQ(split.weights.value(), whole.weights.value());
  // The model's FLOP per step are the same however the sequences are split.
  ExecutionSpec one = e;
  one.cp = 1;
  EXPECT_DOUBLE_EQ(model_flop_per_step(m, e).value(), model_flop_per_step(m, one).value());
}

} // namespace
} // namespace trainsim
