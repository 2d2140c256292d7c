// Selective recomputation by module (execution.recompute_modules, Megatron-Core's names): what
// each module runs again in the backward (models/operators.cpp, attention_operators.cpp), what
// it stops keeping (models/workload_memory.cpp) and the work it adds to the hardware FLOP
// (models/step_compute.cpp). Expected values derived by hand on one-layer models.
#include <gtest/gtest.h>

#include "models/step_compute.hpp"
#include "models/workload.hpp"
#include "tests/models/operator_fixtures.hpp"

namespace trainsim {
namespace {

using testing::find_or_null;
using testing::tiny_layer;

// tiny_layer() (d_model 8, 2 heads of 4, d_ff 32, 4 tokens, BF16) without dropout or biases,
// with 4 experts of d_ff 32 (not gated), top 2, on one GPU.
ModelSpec tiny_moe() {
  ModelSpec m = tiny_layer();
  m.dropout = false, m.biases = false;
  m.experts = 4, m.top_k = 2;
  return m;
}

ModelSpec tiny_dense() {
  ModelSpec m = tiny_layer();
  m.dropout = false, m.biases = false;
  return m;
}

// Latent attention on tiny_dense(): query latent 4, key/value latent 2, rotary 2, the rest of
// a key 4 and a value 3 wide, so 2 heads of qk_head_dim 6.
ModelSpec tiny_latent() {
  ModelSpec m = tiny_dense();
  m.mla = {4, 2, 2, 4, 3};
  return m;
}

ExecutionSpec selective(std::initializer_list<RecomputeModule> modules) {
  ExecutionSpec e;
  e.recompute = Recompute::selective;
  e.recompute_modules = 0;
  for (RecomputeModule m : modules) e.recompute_modules |= module_bit(m);
  return e;
}

// The backward's kernels that run a forward one again: their count and GEMM FLOP.
struct Again {
  int kernels = 0;
  double gemm_flop = 0;
};
Again again(const Operators& backward) {
  Again a;
  for (const Operator& op : backward)
    if (op.recomputed) {
      ++a.kernels;
      if (op.kind == OperatorKind::gemm) a.gemm_flop += op.flop.value();
    }
  return a;
}

double activations(const ModelSpec& m, const ExecutionSpec& e) {
  return memory_per_stage(m, e, GpuSpec{})[0].activations.value();
}

TEST(RecomputeModules, SelectiveRunsTheAttentionCoreAgainByDefault) {
  ExecutionSpec e;
  e.recompute = Recompute::selective;
  EXPECT_TRUE(e.recomputes_module(RecomputeModule::core_attn));
  EXPECT_FALSE(e.recomputes_module(RecomputeModule::layernorm));
  LayerOperators ops = layer_operators(tiny_dense(), e);
  // Flash attention's forward alone: one kernel, no GEMM.
  EXPECT_EQ(again(ops.attention.backward).kernels, 1);
  EXPECT_NE(find_or_null(ops.attention.backward, "attention"), nullptr);
  EXPECT_EQ(again(ops.mlp.backward).kernels, 0);
  // Without `recompute: selective` the modules run nothing again.
  e.recompute = Recompute::none;
  EXPECT_FALSE(e.recomputes_module(RecomputeModule::core_attn));
  EXPECT_EQ(again(layer_operators(tiny_dense(), e).attention.backward).kernels, 0);
}

TEST(RecomputeModules, LayernormRunsBothNormsAgain) {
  // Each norm reads and writes 4 tokens x 8 x 2 B: 128 B, once more in each block's backward.
  LayerOperators ops = layer_operators(tiny_dense(), selective({RecomputeModule::layernorm}));
  for (const BlockOperators* block : {&ops.attention, &ops.mlp}) {
    const Operator* norm = find_or_null(block->backward, "norm");
    ASSERT_NE(norm, nullptr);
    EXPECT_TRUE(norm->recomputed);
    EXPECT_DOUBLE_EQ(norm->bytes.value(), 128.0);
    EXPECT_EQ(again(block->backward).kernels, 1);
  }
}

TEST(RecomputeModules, MoeActRunsTheRoutedActivationAgainAtItsLoad) {
  // 4 tokens x top 2 = 8 routed rows of d_ff 32 at 2 B: a hidden of 512 B, which GeLU reads
  // and writes (1024 B); it follows the routed tokens as the forward's does.
  LayerOperators ops = layer_operators(tiny_moe(), selective({RecomputeModule::moe_act}));
  const Operator* act = find_or_null(ops.mlp.backward, "bias_gelu");
  ASSERT_NE(act, nullptr);
  EXPECT_TRUE(act->recomputed);
  EXPECT_TRUE(act->routed);
  EXPECT_DOUBLE_EQ(act->bytes.value(), 1024.0);
  EXPECT_EQ(again(ops.mlp.backward).kernels, 1);
}

TEST(RecomputeModules, MlpRunsADenseLayersWholeMlpAgain) {
  // fc1 (4 x 8 -> 32) and fc2 (4 x 32 -> 8): 2 x 4 x 32 x 8 = 2048 FLOP each, and the GeLU.
  LayerOperators ops = layer_operators(tiny_dense(), selective({RecomputeModule::mlp}));
  Again a = again(ops.mlp.backward);
  EXPECT_EQ(a.kernels, 3);
  EXPECT_DOUBLE_EQ(a.gemm_flop, 4096.0);
  // On an expert layer `mlp` leaves the experts alone (moe_act and shared_experts are theirs).
  EXPECT_EQ(
      again(layer_operators(tiny_moe(), selective({RecomputeModule::mlp})).mlp.backward).kernels,
      0);
}

TEST(RecomputeModules, SharedExpertsRunTheirMlpAgain) {
  // One shared expert of d_ff 32 on every token: the 4096 FLOP of the dense MLP above.
  ModelSpec m = tiny_moe();
  m.shared_experts = 1;
  Again a = again(layer_operators(m, selective({RecomputeModule::shared_experts})).mlp.backward);
  EXPECT_EQ(a.kernels, 3);
  EXPECT_DOUBLE_EQ(a.gemm_flop, 4096.0);
}

TEST(RecomputeModules, MlaUpProjRunsTheUpProjectionsAndRotaryAgain) {
  // q_up: 4 tokens x 4 -> 2 heads x 6 = 12: 2 x 4 x 12 x 4 = 384 FLOP; kv_up: 4 x 2 -> 2 heads
  // x (4 + 3) = 14: 2 x 4 x 14 x 2 = 224 FLOP; and the rotary kernel: 608 FLOP, 3 kernels.
  LayerOperators ops = layer_operators(tiny_latent(), selective({RecomputeModule::mla_up_proj}));
  Again a = again(ops.attention.backward);
  EXPECT_EQ(a.kernels, 3);
  EXPECT_DOUBLE_EQ(a.gemm_flop, 608.0);
  const Operator* rotary = find_or_null(ops.attention.backward, "rotary");
  ASSERT_NE(rotary, nullptr);
  EXPECT_TRUE(rotary->recomputed);
}

TEST(RecomputeModules, EachModuleStopsKeepingWhatItRunsAgain) {
  // tiny_moe() keeps 1776 B (tests/models/moe_memory_test.cpp); flash attention keeps no
  // scores, so the default module changes nothing.
  ModelSpec moe = tiny_moe();
  EXPECT_DOUBLE_EQ(activations(moe, selective({RecomputeModule::core_attn})), 1776.0);
  // moe_act: the routed experts' fc2 input, 2 copies x 32 x 2 B a token: 4 x 128 = 512 B less.
  EXPECT_DOUBLE_EQ(activations(moe, selective({RecomputeModule::moe_act})), 1264.0);
  // layernorm: the norms' outputs, QKV's input (16 B) and the router's (16 B): 4 x 32 = 128.
  EXPECT_DOUBLE_EQ(activations(moe, selective({RecomputeModule::layernorm})), 1648.0);
  EXPECT_DOUBLE_EQ(
      activations(moe, selective({RecomputeModule::layernorm, RecomputeModule::moe_act})), 1136.0);
  // A shared expert of d_ff 32 adds its input (16 B) and hidden (32 x 2 + 32 x 2 = 128 B) a
  // token: 1776 + 4 x 144 = 2352; shared_experts drops the hidden again, 4 x 128 = 512.
  moe.shared_experts = 1;
  EXPECT_DOUBLE_EQ(activations(moe, ExecutionSpec{}), 2352.0);
  EXPECT_DOUBLE_EQ(activations(moe, selective({RecomputeModule::shared_experts})), 1840.0);
  // A dense layer keeps per token its norms' inputs 32, QKV's and fc1's inputs 16 + 16, Q, K
  // and V 48, out_proj's input 16 and the hidden 64 + 64: 256, 1024 B in all; mlp drops the
  // hidden, 4 x 128 = 512.
  EXPECT_DOUBLE_EQ(activations(tiny_dense(), ExecutionSpec{}), 1024.0);
  EXPECT_DOUBLE_EQ(activations(tiny_dense(), selective({RecomputeModule::mlp})), 512.0);
  // mla_up_proj: Q and K (2 heads x 6 each) and V (2 x 3) at 2 B, 60 B a token: 240 B.
  EXPECT_DOUBLE_EQ(activations(tiny_latent(), ExecutionSpec{}) -
                       activations(tiny_latent(), selective({RecomputeModule::mla_up_proj})),
                   240.0);
}

TEST(RecomputeModules, HardwareFlopCountsTheGemmsRunAgain) {
  // One microbatch of the one-layer dense model: mlp's 4096 FLOP again, the attention core
  // not (it is not in the list).
  ExecutionSpec e = selective({RecomputeModule::mlp});
  StepFlop f = step_flop(tiny_dense(), e);
  EXPECT_DOUBLE_EQ(f.hardware.value() - f.model.value(), 4096.0);
  // The norms and the activation run no GEMM: no hardware FLOP.
  f = step_flop(tiny_dense(), selective({RecomputeModule::layernorm}));
  EXPECT_DOUBLE_EQ(f.hardware.value(), f.model.value());
}

} // namespace
} // namespace trainsim
