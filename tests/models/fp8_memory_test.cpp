// FP8 weights in HBM (models/workload_memory.cpp, fp8_weight_bytes()): Transformer Engine's
// cached FP8 copies beside BF16 weights, or FP8 weights themselves under fp8_param_gather.
#include <gtest/gtest.h>

#include "models/workload.hpp"

namespace trainsim {
namespace {

// Four MLP blocks of d = 1000 and d_ff = 4000 in FP8: 2 x 1000 x 4000 = 8e6 parameters a
// layer, 3.2e7 in all, on one stage; BF16 weights are 3.2e7 x 2 B = 6.4e7 B.
ModelSpec fp8_blocks(Fp8Recipe recipe) {
  ModelSpec m;
  m.kind = ModelKind::mlp;
  m.layers = 4, m.d_model = 1000, m.d_ff = 4000, m.heads = 1, m.seq_len = 10;
  m.precision = "fp8";
  m.fp8_recipe = recipe;
  return m;
}

GpuSpec hopper() { return GpuSpec{}; }

GpuSpec blackwell() {
  GpuSpec g;
  g.fp8_any_layout = true;
  return g;
}

MemoryUse held(const ModelSpec& m, const ExecutionSpec& e, const GpuSpec& gpu) {
  return memory_per_stage(m, e, gpu)[0];
}

TEST(Fp8Memory, TransformerEngineCachesAnFp8CopyBesideTheBf16Weights) {
  // Hopper's FP8 GEMMs take only the TN layout, so a tensorwise copy keeps its transpose too:
  // 2 B a parameter, 3.2e7 x 2 = 6.4e7 B beside the 6.4e7 B of BF16 weights. Blackwell's take
  // every layout: 3.2e7 x 1 = 3.2e7 B. MXFP8 keeps both copies with an E8M0 scale per 32:
  // 3.2e7 x 2 x (1 + 1/32) = 6.6e7 B; blockwise a 4-byte scale per 128 x 128:
  // 3.2e7 x 2 x (1 + 4/16384) = 6.4015625e7 B.
  ExecutionSpec e;
  ModelSpec bf16 = fp8_blocks(Fp8Recipe::none);
  bf16.precision = "bf16";
  EXPECT_DOUBLE_EQ(held(bf16, e, hopper()).fp8_copies.value(), 0.0);
  MemoryUse h = held(fp8_blocks(Fp8Recipe::tensorwise), e, hopper());
  EXPECT_DOUBLE_EQ(h.weights.value(), 6.4e7);
  EXPECT_DOUBLE_EQ(h.fp8_copies.value(), 6.4e7);
  EXPECT_DOUBLE_EQ(h.total().value() - held(bf16, e, hopper()).total().value(), 6.4e7);
  EXPECT_DOUBLE_EQ(held(fp8_blocks(Fp8Recipe::delayed), e, blackwell()).fp8_copies.value(),
                   3.2e7);
  EXPECT_DOUBLE_EQ(held(fp8_blocks(Fp8Recipe::mxfp8), e, blackwell()).fp8_copies.value(), 6.6e7);
  EXPECT_DOUBLE_EQ(held(fp8_blocks(Fp8Recipe::blockwise), e, hopper()).fp8_copies.value(),
                   6.4015625e7);
}

TEST(Fp8Memory, Fp8ParameterGathersKeepTheWeightsInFp8Alone) {
  // With fp8_param_gather the weights are FP8 and no BF16 copy is kept. ZeRO-1 holds them
  // whole: on Hopper a byte and its transpose's, 3.2e7 x 2 = 6.4e7 B (as much as BF16); on
  // Blackwell 3.2e7 x 1 = 3.2e7 B; no cached copy beside them.
  ExecutionSpec e;
  e.zero = 1;
  e.fp8_param_gather = true;
  MemoryUse h = held(fp8_blocks(Fp8Recipe::tensorwise), e, hopper());
  EXPECT_DOUBLE_EQ(h.weights.value(), 6.4e7);
  EXPECT_DOUBLE_EQ(h.fp8_copies.value(), 0.0);
  EXPECT_DOUBLE_EQ(held(fp8_blocks(Fp8Recipe::tensorwise), e, blackwell()).weights.value(),
                   3.2e7);
}

TEST(Fp8Memory, Zero3ShardsAtTheGatheredWordAndHoldsItsGatheredLayersInFp8) {
  // ZeRO-3 over dp 4 with the next layer's gather beside the current one (2 layers of 8e6
  // held whole). MXFP8 with fp8_param_gather: the shard is 3.2e7 x (1 + 1/32) / 4 = 8.25e6 B,
  // the two gathered layers 2 x 8e6 x 2 x (1 + 1/32) = 3.3e7 B; 4.125e7 B in all.
  // Tensorwise on Hopper without it: a BF16 shard, 3.2e7 x 2 / 4 = 1.6e7 B, two BF16 layers,
  // 2 x 8e6 x 2 = 3.2e7 B, and their FP8 casts beside them, 2 x 8e6 x 2 = 3.2e7 B.
  ExecutionSpec e;
  e.dp = 4, e.global_batch = 4, e.zero = 3, e.zero3_prefetch = true;
  e.fp8_param_gather = true;
  MemoryUse mx = held(fp8_blocks(Fp8Recipe::mxfp8), e, blackwell());
  EXPECT_DOUBLE_EQ(mx.weights.value(), 4.125e7);
  EXPECT_DOUBLE_EQ(mx.fp8_copies.value(), 0.0);
  e.fp8_param_gather = false;
  MemoryUse h = held(fp8_blocks(Fp8Recipe::tensorwise), e, hopper());
  EXPECT_DOUBLE_EQ(h.weights.value(), 4.8e7);
  EXPECT_DOUBLE_EQ(h.fp8_copies.value(), 3.2e7);
}

} // namespace
} // namespace trainsim
