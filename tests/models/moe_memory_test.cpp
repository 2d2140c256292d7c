// What an expert layer keeps for its backward (models/workload_memory.cpp): the routed copies,
// the router's probabilities and map, and every linear layer's input at FP8's one byte under
// precision: fp8. Bytes derived by hand on a one-layer model.
#include <gtest/gtest.h>

#include "models/workload.hpp"

namespace trainsim {
namespace {

// One layer of d_model 8 (2 heads, MHA: q = kv = 8), 4 experts of d_ff 32 (not gated), top 2;
// one microbatch of 4 tokens on one GPU (tp 1 counts as sequence parallel), no dropout, BF16.
ModelSpec tiny_moe() {
  ModelSpec m;
  m.layers = 1, m.d_model = 8, m.heads = 2, m.d_ff = 32, m.seq_len = 4;
  m.experts = 4, m.top_k = 2;
  m.dropout = false, m.biases = false;
  return m;
}

double activations(const ModelSpec& m) {
  return memory_per_stage(m, ExecutionSpec{}, GpuSpec{})[0].activations.value();
}

TEST(MoeMemory, AnExpertLayerKeepsItsRoutedCopiesAndTheRoutersProbabilities) {
  // Per token, BF16: norms' inputs 2 x 8 x 2 = 32, QKV's input 16, the router's input 16
  // (whole: 64); Q, K, V (8 + 16) x 2 = 48, out_proj's input 16, the hidden of 2 copies of
  // d_ff 32: the activation's input 64 x 2 = 128 and fc2's 64 x 2 = 128 (split: 320).
  // 4 tokens x 384 = 1536. Routing: 4 tokens x 2 copies x 8 x 2 B = 128 of copies, and per
  // token 4 experts x 5 B of probabilities and map and 2 x 4 B of the copies' probabilities,
  // 4 x 28 = 112. In all 1776 B.
  EXPECT_DOUBLE_EQ(activations(tiny_moe()), 1776.0);
}

TEST(MoeMemory, Fp8KeepsEachLinearLayersInputInOneByte) {
  // As above with the linear layers' inputs at 1 B: QKV's 8, out_proj's 8, fc2's 64, the
  // routed copies 4 x 2 x 8 = 64; the router's input stays BF16 (16). Whole 32 + 8 + 16 = 56;
  // split 48 + 8 + 128 + 64 = 248; 4 x 304 = 1216; routing 64 + 112 = 176. In all 1392 B.
  ModelSpec m = tiny_moe();
  m.precision = "fp8";
  EXPECT_DOUBLE_EQ(activations(m), 1392.0);
}

TEST(MoeMemory, DroppedTokensAreNotKept) {
  // Capacity factor 0.5 keeps one copy a token: the hidden halves to 2 x 32 x 2 B = 128 a token
  // (split 48 + 16 + 128 = 192, 4 x (64 + 192) = 1024), the copies to 64 B, and the copies'
  // probabilities to 4 B a token (4 x (20 + 4) = 96): 1184 B.
  ExecutionSpec e;
  e.moe_capacity_factor = 0.5;
  EXPECT_DOUBLE_EQ(memory_per_stage(tiny_moe(), e, GpuSpec{})[0].activations.value(), 1184.0);
}

} // namespace
} // namespace trainsim
