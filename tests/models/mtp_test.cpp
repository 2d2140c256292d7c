// Multi-token prediction (model.mtp_layers) and the LM head's BF16 GEMMs under FP8.
#include <gtest/gtest.h>

#include "models/compute_model.hpp"
#include "models/hardware_presets.hpp"
#include "models/stage_layout.hpp"
#include "models/step_compute.hpp"
#include "models/step_program.hpp"
#include "models/workload.hpp"
#include "models/workload_parts.hpp"
#include "operator_fixtures.hpp"

namespace trainsim {
namespace {

using testing::find;

/// Two tiny layers (d_model 8, 2 heads, d_ff 32, one sequence of 4 tokens a step) with a
/// vocabulary of 16, no biases, rotary positions.
ModelSpec two_tiny_layers(int mtp) {
  ModelSpec m = testing::tiny_layer();
  m.layers = 2, m.vocab = 16, m.biases = false, m.rotary = true, m.dropout = false;
  m.mtp_layers = mtp;
  return m;
}

TEST(Mtp, TheLastStageHoldsTheModulesLayersAfterItsOwn) {
  // 2 layers over pp 2: one each, and the module's layer after the last stage's; it is of the
  // last layer's kind (with a window on every other layer: the full one).
  ModelSpec m = two_tiny_layers(1);
  m.window = 2, m.full_attention_every = 2;
  ExecutionSpec e;
  e.pp = 2;
  EXPECT_EQ(chunk_layers(m, e, 0, 0), 1);
  EXPECT_EQ(chunk_layers(m, e, 1, 0), 2);
  EXPECT_EQ(chunk_first_layer(m, e, 1, 0), 1);
  EXPECT_TRUE(layer_kind(m, 2).full_attention);
  EXPECT_FALSE(layer_kind(m, 0).full_attention);
  EXPECT_EQ(layer_kinds(m).back().second, 2); // layer 1 and the module's
}

TEST(Mtp, ParametersAddTheModulesLayerAndProjection) {
  // A layer: attention 4 x 8 x 8 = 256, the MLP 2 x 8 x 32 = 512: 768; embedding and head
  // 2 x 16 x 8 = 256. Without the module 2 x 768 + 256 = 1792; one module adds a layer and its
  // projection 2 x 8 x 8 = 128: 2688.
  EXPECT_DOUBLE_EQ(model_parameters(two_tiny_layers(0)).total, 1792.0);
  EXPECT_DOUBLE_EQ(model_parameters(two_tiny_layers(1)).total, 2688.0);
  // The last stage holds the head (128), the embedding (128) and the projection: on one stage
  // the embedding is the first stage's own; on two it is a copy, and the first stage still
  // holds its own.
  ExecutionSpec e;
  EXPECT_DOUBLE_EQ(workload_parts::vocabulary_params(two_tiny_layers(1), e, 0), 384.0);
  e.pp = 2;
  EXPECT_DOUBLE_EQ(workload_parts::vocabulary_params(two_tiny_layers(1), e, 1), 384.0);
  EXPECT_DOUBLE_EQ(workload_parts::vocabulary_params(two_tiny_layers(1), e, 0), 128.0);
}

TEST(Mtp, FlopCountTheModuleAsMegatronLmDoes) {
  // A layer's forward on 4 tokens: QKV 2 x 4 x 8 x 24 = 1536, scores and weighted values in
  // full 4 x 4 x 4 x 8 = 512, the output 2 x 4 x 8 x 8 = 512, the MLP 2 x 2 x 4 x 8 x 32 = 4096:
  // 6656. Logits 2 x 4 x 8 x 16 = 1024. Without the module 3 x (2 x 6656 + 1024) = 43008. The
  // module: one more layer and logits, and its projection and norms 2 x 4 x (2 x 64 + 3 x 8) =
  // 1216: 3 x (3 x 6656 + 2 x 1024 + 1216) = 69696.
  ExecutionSpec e;
  EXPECT_DOUBLE_EQ(model_flop_per_step(two_tiny_layers(0), e).value(), 43008.0);
  EXPECT_DOUBLE_EQ(model_flop_per_step(two_tiny_layers(1), e).value(), 69696.0);
}

TEST(Mtp, TheHeadBlockRunsEachModulesKernels) {
  // One module: the projection of the two normed inputs, 4 tokens x 16 in x 8 out: 2 x 4 x 16
  // x 8 = 1024 FLOP; the logits twice, the main head's and the module's.
  ModelSpec m = two_tiny_layers(1);
  BlockOperators head = head_operators(m, ExecutionSpec{});
  EXPECT_DOUBLE_EQ(find(head.forward, "mtp_proj").flop.value(), 1024.0);
  int logits = 0;
  for (const Operator& op : head.forward) logits += std::string(op.name) == "logits" ? 1 : 0;
  EXPECT_EQ(logits, 2);
  EXPECT_STREQ(head.backward.front().name, "cross_entropy_grad");
}

TEST(Mtp, TheLastStageRunsOneMoreLayerEachPass) {
  // pp 2, one microbatch, the roofline's one kernel per block: stage 0 runs its layer's two
  // blocks forward and backward, 4 compute ops; stage 1 its layer and the module's, 8.
  Scenario s;
  s.model = two_tiny_layers(1);
  s.model.compute = ComputeModel::roofline;
  s.model.vocab = 0; // the roofline has no head; the layers are what this test counts
  s.model.mtp_layers = 1;
  s.execution.pp = 2;
  auto computes = [&](int stage) {
    int n = 0;
    for (const Op& op : stage_program(s, stage, false)) n += op.kind == OpKind::compute ? 1 : 0;
    return n;
  };
  EXPECT_EQ(computes(0), 4);
  EXPECT_EQ(computes(1), 8);
}

TEST(Fp8, TheLmHeadStaysBf16) {
  // Under FP8 the B200's layers' GEMMs run at its FP8 gemm_peak and the logits at its BF16
  // one: the same logits GEMM takes the time it takes in BF16.
  const GpuPreset* b200 = find_gpu_preset("b200");
  ASSERT_NE(b200, nullptr);
  GpuSpec fp8 = *preset_at_precision(*b200, "fp8");
  EXPECT_DOUBLE_EQ(fp8.wide_gemm_peak.value(), b200->gpu.gemm_peak.value());
  EXPECT_GT(fp8.gemm_peak.value(), 1.5 * b200->gpu.gemm_peak.value());
  Operator logits = find(head_operators(two_tiny_layers(0), ExecutionSpec{}).forward, "logits");
  EXPECT_TRUE(logits.wide);
  EXPECT_DOUBLE_EQ(operator_time(logits, fp8).total().value(),
                   operator_time(logits, b200->gpu).total().value());
}

} // namespace
} // namespace trainsim
