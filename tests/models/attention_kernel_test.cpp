// The unfused attention core (model.attention: unfused, Megatron-LM before flash attention):
// its batched GEMMs, the s x s traffic of its softmax and dropout, what selective
// recomputation runs again and what the scores cost in memory, each derived by hand.
#include <gtest/gtest.h>

#include <string>

#include "models/compute_model.hpp"
#include "models/operators.hpp"
#include "models/workload.hpp"
#include "tests/models/operator_fixtures.hpp"

namespace trainsim {
namespace {

// The tiny layer (d_model 8, 2 heads of 4, sequences of 4 tokens) with the unfused core.
ModelSpec tiny() {
  ModelSpec m = testing::tiny_layer();
  m.attention = AttentionKernel::unfused;
  return m;
}

const Operator* find(const Operators& ops, const std::string& name) {
  return testing::find_or_null(ops, name);
}

TEST(UnfusedAttention, RunsTheFullScoresAsBatchedGemmsAndMovesThemThroughHbm) {
  BlockOperators b = layer_operators(tiny(), ExecutionSpec{}).attention;
  // Q K^T: one product per (sequence, head) = 2, each 4 x 4 outputs over d_head 4, all of it
  // (the causal mask saves nothing): 2 x 4 x 4 x 4 x 2 = 256 FLOP; the context (scores x V)
  // the same. Flash attention executes the causal half of both: 256 in all, here 512.
  const Operator* scores = find(b.forward, "scores");
  ASSERT_NE(scores, nullptr);
  EXPECT_EQ(scores->gemm.batch, 2);
  EXPECT_EQ(scores->flop.value(), 256);
  // Its bytes: Q (4 x 4), K (4 x 4) in, 4 x 4 scores out, per product, 2 B each: 96 x 2 = 192.
  EXPECT_EQ(scores->bytes.value(), 192);
  EXPECT_EQ(find(b.forward, "context")->flop.value(), 256);
  EXPECT_EQ(find(b.forward, "attention"), nullptr);
  // 2 x 4 x 4 = 32 scores. Softmax reads and writes them: 2 x 32 x 2 B = 128 B; dropout also
  // writes a 1-byte mask: 128 + 32 = 160 B. Backward: softmax reads the probabilities and
  // their gradient and writes the scores' gradient (192 B); dropout's gradient 160 B.
  EXPECT_EQ(find(b.forward, "scale_mask_softmax")->bytes.value(), 128);
  EXPECT_EQ(find(b.forward, "attention_dropout")->bytes.value(), 160);
  EXPECT_EQ(find(b.backward, "softmax_grad")->bytes.value(), 192);
  EXPECT_EQ(find(b.backward, "attention_dropout_grad")->bytes.value(), 160);
  // Both GEMMs' gradients: 2 x 256 FLOP each.
  double grads = 0;
  for (const char* name : {"scores_dgrad", "scores_wgrad", "context_dgrad", "context_wgrad"})
    grads += find(b.backward, name)->flop.value();
  EXPECT_EQ(grads, 1024);
}

TEST(UnfusedAttention, SelectiveRecomputationRunsTheCoreForwardAgain) {
  ExecutionSpec e;
  double plain = flop_of(layer_operators(tiny(), e).attention.backward).value();
  e.recompute = Recompute::selective; // scores, softmax, dropout, context: +512 FLOP
  BlockOperators selective = layer_operators(tiny(), e).attention;
  EXPECT_EQ(flop_of(selective.backward).value(), plain + 512);
  EXPECT_NE(find(selective.backward, "scale_mask_softmax"), nullptr);
}

TEST(UnfusedAttention, KeepsFiveBytesPerScoreUnlessSelectiveRecomputationDropsThem) {
  // Korthikanti et al. eq. 1: 34 s b h + 5 a s^2 b bytes per layer (tp 1). Here s b = 4
  // tokens, h 8, a 2, s 4: 34 x 4 x 8 = 1088 B, plus 5 x 2 x 16 = 160 B of scores.
  ExecutionSpec e;
  EXPECT_EQ(memory_per_gpu(tiny(), e, GpuSpec{}).activations.value(), 1088 + 160);
  ModelSpec flash = tiny();
  flash.attention = AttentionKernel::flash;
  EXPECT_EQ(memory_per_gpu(flash, e, GpuSpec{}).activations.value(), 1088);
  e.recompute = Recompute::selective;
  EXPECT_EQ(memory_per_gpu(tiny(), e, GpuSpec{}).activations.value(), 1088);
}

TEST(UnfusedAttention, BatchedProductsShareTheWavesOfOneKernel) {
  // 128 x 128 outputs fill one 128 x 128 tile. 108 of them on 108 SMs are one full wave (1.0);
  // 109 need a second wave with one tile in it: 109 / 216.
  GpuSpec a100;
  a100.sms = 108;
  EXPECT_DOUBLE_EQ(gemm_efficiency({128, 128, 64, 108}, a100), 1.0);
  EXPECT_DOUBLE_EQ(gemm_efficiency({128, 128, 64, 109}, a100), 109.0 / 216.0);
}

} // namespace
} // namespace trainsim
