// The per-operator compute model (models/operators, models/compute_model): shapes, FLOP and
// bytes of a tiny layer derived by hand, and the efficiency figures applied to them.
#include "models/compute_model.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "models/operators.hpp"
#include "models/workload.hpp"
#include "models/step_compute.hpp"
#include "tests/models/operator_fixtures.hpp"

namespace trainsim {
namespace {

using testing::find;

// The tiny layer with one KV head (grouped-query), micro-batch 1: 4 tokens per microbatch.
ModelSpec tiny() {
  ModelSpec m = testing::tiny_layer();
  m.kv_heads = 1;
  return m;
}

double flop_of_kind(const Operators& ops, OperatorKind kind) {
  double f = 0;
  for (const Operator& op : ops)
    if (op.kind == kind) f += op.flop.value();
  return f;
}

TEST(Operators, GemmsHaveTheirShapesAfterTheTensorParallelSplit) {
  // QKV: 4 tokens x (8 queries + 2 x 1 KV head x 4) = 16 outputs, over d_model 8:
  // 2 x 4 x 16 x 8 = 1024 FLOP. Out-projection 4 x 8 from 8: 512. fc1 4 x 32 from 8 and fc2
  // 4 x 8 from 32: 2048 each. Forward GEMMs 5632 FLOP; backward twice that (dX and dW).
  LayerOperators layer = layer_operators(tiny(), ExecutionSpec{});
  const Operator& qkv = find(layer.attention.forward, "qkv");
  EXPECT_EQ(qkv.gemm.m, 4);
  EXPECT_EQ(qkv.gemm.n, 16);
  EXPECT_EQ(qkv.gemm.k, 8);
  EXPECT_EQ(qkv.flop.value(), 1024);
  double forward = flop_of_kind(layer.attention.forward, OperatorKind::gemm) +
                   flop_of_kind(layer.mlp.forward, OperatorKind::gemm);
  double backward = flop_of_kind(layer.attention.backward, OperatorKind::gemm) +
                    flop_of_kind(layer.mlp.backward, OperatorKind::gemm);
  EXPECT_EQ(forward, 5632);
  EXPECT_EQ(backward, 2 * 5632);
  // The weight gradient of fc1 is d_model x d_ff outputs summed over the 4 tokens.
  const Operator& wgrad = find(layer.mlp.backward, "fc1_wgrad");
  EXPECT_EQ(wgrad.gemm.m, 8);
  EXPECT_EQ(wgrad.gemm.n, 32);
  EXPECT_EQ(wgrad.gemm.k, 4);
  // Over tp 2 every GEMM keeps its tokens and halves its split side: QKV 4 x 8 from 8.
  ExecutionSpec tp2;
  tp2.tp = 2;
  EXPECT_EQ(find(layer_operators(tiny(), tp2).attention.forward, "qkv").gemm.n, 8);
}

TEST(Operators, CausalFlashAttentionExecutesHalfTheScores) {
  // Per head, Q K^T and P V are 4 x 4 x 4 multiply-adds each: 2 x 2 x 64 = 256 FLOP; 2 heads
  // 512, of which the causal mask leaves half: 256. Backward 2.5 x that: 640.
  LayerOperators layer = layer_operators(tiny(), ExecutionSpec{});
  EXPECT_EQ(find(layer.attention.forward, "attention").flop.value(), 256);
  EXPECT_EQ(find(layer.attention.backward, "attention_grad").flop.value(), 640);
  EXPECT_EQ(find(layer.attention.forward, "attention").head_dim, 4);
}

TEST(Operators, ASetHeadWidthShapesTheProjectionsAndTheCore) {
  // head_dim 8 on d_model 8 with 2 heads and 1 KV head: queries 2 x 8 = 16 wide, keys and
  // values 8 each. QKV: 4 tokens x (16 + 2 x 8) = 32 outputs over d_model 8: 2 x 4 x 32 x 8 =
  // 2048 FLOP. The output projection takes the 16-wide attention output back to 8: 2 x 4 x 8
  // x 16 = 1024. The core runs heads of 8: per head 2 x 2 x (4 x 4 x 8) = 512 FLOP, 2 heads
  // 1024, half of it under the causal mask: 512.
  ModelSpec m = tiny();
  m.head_dim = 8;
  LayerOperators layer = layer_operators(m, ExecutionSpec{});
  const Operator& qkv = find(layer.attention.forward, "qkv");
  EXPECT_EQ(qkv.gemm.n, 32);
  EXPECT_EQ(qkv.flop.value(), 2048);
  const Operator& out = find(layer.attention.forward, "out_proj");
  EXPECT_EQ(out.gemm.n, 8);
  EXPECT_EQ(out.gemm.k, 16);
  EXPECT_EQ(out.flop.value(), 1024);
  EXPECT_EQ(find(layer.attention.forward, "attention").flop.value(), 512);
  EXPECT_EQ(find(layer.attention.forward, "attention").head_dim, 8);
  // Unset, a head is d_model / heads wide: the same operators as tiny() itself.
  m.head_dim = 4;
  EXPECT_EQ(find(layer_operators(m, ExecutionSpec{}).attention.forward, "qkv").flop.value(),
            find(layer_operators(tiny(), ExecutionSpec{}).attention.forward, "qkv").flop.value());
}

TEST(Operators, LatentAttentionProjectsDownThenUpPerHead) {
  // tiny() (4 tokens, d_model 8, 2 heads) with latent attention: query latent 4, key/value
  // latent 2, keys 4 + 2 (rotary) wide, values 3; tp 2 with sequence parallelism, so one head
  // and, for the down projections (whole weights on every rank), 2 of the 4 tokens.
  ModelSpec m = tiny();
  m.kv_heads = 0;
  m.mla = {4, 2, 2, 4, 3};
  ExecutionSpec e;
  e.tp = 2, e.sequence_parallel = true;
  LayerOperators layer = layer_operators(m, e);
  const Operators& f = layer.attention.forward;
  // q_down (2, 4, 8): 2 x 2 x 4 x 8 = 128 FLOP; q_up (4, 1 head x 6, 4): 192; kv_down
  // (2, 2 + 2, 8): 128; kv_up (4, 1 head x (4 + 3), 2): 112; out_proj (4, 8, 3): 192.
  EXPECT_EQ(find(f, "q_down").flop.value(), 128);
  EXPECT_EQ(find(f, "q_up").flop.value(), 192);
  EXPECT_EQ(find(f, "kv_down").flop.value(), 128);
  EXPECT_EQ(find(f, "kv_up").flop.value(), 112);
  EXPECT_EQ(find(f, "out_proj").flop.value(), 192);
  // The latents' norms as norm() on their width and shard: 2 x 2 x 4 x 2 B = 32 B, and 16 B.
  EXPECT_EQ(find(f, "q_norm").bytes.value(), 32);
  EXPECT_EQ(find(f, "kv_norm").bytes.value(), 16);
  // Rotary: the head's 2 rotary query columns and the shared rotary key, read and written:
  // 2 x 4 x (1 + 1) x 2 x 2 B = 64 B.
  EXPECT_EQ(find(f, "rotary").bytes.value(), 64);
  // The core: per sequence Q K^T 2 x 4 x 4 x 6 = 192 and P V 2 x 4 x 4 x 3 = 96 FLOP, half
  // under the causal mask: 144; its rate is read at the keys' width 6.
  EXPECT_EQ(find(f, "attention").flop.value(), 144);
  EXPECT_EQ(find(f, "attention").head_dim, 6);
  EXPECT_EQ(find(layer.attention.backward, "attention_grad").flop.value(), 360);
  // The layer's weights: query 8 x 4 + 4 x 2 x 6 = 80, key/value 8 x 4 + 2 x 2 x 7 = 60, output
  // 2 x 3 x 8 = 48: 188, beside the MLP's 2 x 8 x 32 = 512 (tp 1).
  EXPECT_DOUBLE_EQ(layer_costs(m, ExecutionSpec{}).params, 188 + 512);
}

TEST(Operators, ASlidingWindowAttendsToTheKeysItSees) {
  // tiny(): 4 tokens of one sequence, queries 8 wide. A window of 2: the queries see 1, 2, 2
  // and 2 keys, 7 in all (2 - 2 x 1 / (2 x 4) = 1.75 each), against 10 causal ones without a
  // window, of which flash attention's count takes s / 2 = 2 per query. Q K^T and P V are
  // 2 x 8 FLOP each per key: 4 x 1.75 x 4 x 8 = 224 FLOP (256 without the window); the rate is
  // read at the window's length.
  ModelSpec m = tiny();
  m.window = 2;
  LayerOperators layer = layer_operators(m, ExecutionSpec{});
  EXPECT_EQ(find(layer.attention.forward, "attention").flop.value(), 224);
  EXPECT_EQ(find(layer.attention.forward, "attention").seq_len, 2);
  EXPECT_EQ(find(layer.attention.backward, "attention_grad").flop.value(), 560);
}

TEST(Operators, AQkNormNormalizesQueriesAndKeysAsANormDoes) {
  // tiny(): 4 tokens, queries 8 wide and one KV head of 4, 2 bytes a word: q and k are
  // 4 x (8 + 4) x 2 = 96 bytes. Forward reads and writes them (192 B), backward reads them
  // and their gradient and writes the input gradient (288 B), as norm() does on its width.
  ModelSpec m = tiny();
  EXPECT_EQ(testing::find_or_null(layer_operators(m, ExecutionSpec{}).attention.forward, "qk_norm"),
            nullptr);
  m.qk_norm = true;
  LayerOperators layer = layer_operators(m, ExecutionSpec{});
  EXPECT_EQ(find(layer.attention.forward, "qk_norm").bytes.value(), 192);
  EXPECT_EQ(find(layer.attention.backward, "qk_norm_grad").bytes.value(), 288);
}

TEST(Operators, RecomputationRunsForwardWorkAgain) {
  ExecutionSpec e;
  LayerOperators plain = layer_operators(tiny(), e);
  e.recompute = Recompute::selective; // the attention core's forward again: +256
  LayerOperators selective = layer_operators(tiny(), e);
  EXPECT_EQ(flop_of(selective.attention.backward).value(),
            flop_of(plain.attention.backward).value() + 256);
  EXPECT_EQ(flop_of(selective.mlp.backward).value(), flop_of(plain.mlp.backward).value());
  e.recompute = Recompute::full; // every forward kernel again
  LayerOperators full = layer_operators(tiny(), e);
  EXPECT_EQ(full.mlp.backward.size(), plain.mlp.backward.size() + plain.mlp.forward.size());
  EXPECT_EQ(bytes_of(full.mlp.backward).value(),
            (bytes_of(plain.mlp.backward) + bytes_of(plain.mlp.forward)).value());
}

TEST(Operators, MemoryBoundKernelsMoveTheirActivations) {
  // Norm forward reads and writes 4 tokens x 8 x 2 B = 64 B: 128 B. With sequence
  // parallelism over tp 2 each GPU normalizes 2 tokens: 64 B. GeLU reads and writes
  // 4 x 32 x 2 B = 256 B: 512 B; SwiGLU reads gate and up, writes one: 768 B.
  ModelSpec m = tiny();
  ExecutionSpec e;
  EXPECT_EQ(find(layer_operators(m, e).attention.forward, "norm").bytes.value(), 128);
  EXPECT_EQ(find(layer_operators(m, e).mlp.forward, "bias_gelu").bytes.value(), 512);
  m.gated_mlp = true;
  EXPECT_EQ(find(layer_operators(m, e).mlp.forward, "swiglu").bytes.value(), 768);
  e.tp = 2;
  e.sequence_parallel = true;
  EXPECT_EQ(find(layer_operators(m, e).attention.forward, "norm").bytes.value(), 64);
  // Bias, dropout and residual add read two 64 B activations and write one, plus a one-byte
  // mask per element (4 x 8 = 32 B); a Llama-style layer only adds: 3 x 64 B.
  e = ExecutionSpec{};
  EXPECT_EQ(find(layer_operators(m, e).mlp.forward, "bias_dropout_add").bytes.value(), 3 * 64 + 32);
  m.dropout = false;
  EXPECT_EQ(find(layer_operators(m, e).mlp.forward, "residual_add").bytes.value(), 3 * 64);
}

TEST(Operators, VocabularyAddsEmbeddingHeadAndTheirParameters) {
  ModelSpec m = tiny();
  ExecutionSpec e;
  EXPECT_TRUE(embedding_operators(m, e).forward.empty());
  EXPECT_TRUE(head_operators(m, e).backward.empty());
  EXPECT_EQ(embedding_params(m, e), 0);
  // Vocabulary 100: the LM head is 4 tokens x 100 logits from 8: 2 x 4 x 100 x 8 = 6400 FLOP
  // forward, 12800 backward. Embedding 100 x 8 = 800 parameters plus 4 x 8 = 32 learned
  // positions; the head's 800.
  m.vocab = 100;
  BlockOperators head = head_operators(m, e);
  EXPECT_EQ(flop_of(head.forward).value(), 6400);
  EXPECT_EQ(flop_of(head.backward).value(), 12800);
  EXPECT_EQ(find(head.forward, "cross_entropy").bytes.value(), 2 * 4 * 100 * 2);
  EXPECT_EQ(embedding_params(m, e), 832);
  EXPECT_EQ(head_params(m, e), 800);
  m.rotary = true; // no learned positions
  EXPECT_EQ(embedding_params(m, e), 800);
}

TEST(Operators, UnfusedGradientAccumulationAddsEachWeightsGradient) {
  // Without the fusion every parameter's fresh BF16 gradient is read (2 B) and added into the
  // accumulated one, read and written (2 x 2 B, or 2 x 4 B in FP32): 6 or 10 B per parameter.
  // QKV: 8 x 16 weights + 16 biases = 144 parameters, two tensors (two kernels); fc1: 8 x 32 +
  // 32 = 288; a LayerNorm's scale and shift: 2 x 8 = 16.
  ModelSpec m = tiny();
  ExecutionSpec e;
  EXPECT_EQ(testing::find_or_null(layer_operators(m, e).attention.backward, "qkv_grad_accum"),
            nullptr); // fused by default: the GEMM accumulates in place
  e.grad_accumulation_fusion = false;
  LayerOperators layer = layer_operators(m, e);
  const Operator& qkv = find(layer.attention.backward, "qkv_grad_accum");
  EXPECT_EQ(qkv.bytes.value(), 144 * 6);
  EXPECT_EQ(qkv.count, 2);
  EXPECT_EQ(find(layer.mlp.backward, "fc1_grad_accum").bytes.value(), 288 * 6);
  EXPECT_EQ(find(layer.mlp.backward, "norm_grad_accum").bytes.value(), 16 * 6);
  EXPECT_EQ(testing::find_or_null(layer.attention.forward, "qkv_grad_accum"), nullptr);
  e.fp32_gradients = true;
  EXPECT_EQ(find(layer_operators(m, e).attention.backward, "qkv_grad_accum").bytes.value(),
            144 * 10);
  // The vocabulary's weights too: the embedding's 100 x 8 + 4 x 8 positions (two tensors) and
  // the LM head's 100 x 8, at 10 B each here.
  m.vocab = 100;
  EXPECT_EQ(find(embedding_operators(m, e).backward, "embedding_grad_accum").bytes.value(),
            832 * 10);
  EXPECT_EQ(find(head_operators(m, e).backward, "logits_grad_accum").bytes.value(), 800 * 10);
}

TEST(Operators, TheFirstWeightsGradientRunsBesideTheBlocksCollective) {
  // What TP overlap runs beside a block's backward collective: the gradient of the block's
  // first weight, which the backward computes after the input gradient the collective carries
  // and which no later kernel reads. Attention: qkv_wgrad (8 x 16 from 4 tokens: 2 x 8 x 16 x
  // 4 = 1024 FLOP); MLP: fc1_wgrad (8 x 32 from 4: 2048). Unfused, the weight's accumulation
  // as well. Not out_proj's or fc2's: their backward runs first, before the input gradient.
  ExecutionSpec e;
  e.grad_accumulation_fusion = false;
  LayerOperators layer = layer_operators(tiny(), e);
  auto beside = [](const Operators& ops) {
    std::string names;
    double flop = 0;
    for (const Operator& op : ops)
      if (op.beside_collective) names += std::string(op.name) + " ", flop += op.flop.value();
    return std::make_pair(names, flop);
  };
  EXPECT_EQ(beside(layer.attention.backward),
            std::make_pair(std::string("qkv_wgrad qkv_grad_accum "), 1024.0));
  EXPECT_EQ(beside(layer.mlp.backward),
            std::make_pair(std::string("fc1_wgrad fc1_grad_accum "), 2048.0));
  EXPECT_EQ(beside(layer.mlp.forward).first, "");
}

TEST(Operators, TheOptimizerStepRunsMegatronsKernels) {
  // 1000 parameters, BF16, fp32 gradients (4 B): the norm reads them (4000 B); Adam reads and
  // writes 12 B of state and reads the gradient (28000 B); the master weights are copied to
  // BF16 (4 + 2 B: 6000 B); the gradients are zeroed (4000 B). 42 B per parameter.
  Operators bf16 = optimizer_operators(1000, tiny(), ExecutionSpec{});
  ASSERT_EQ(bf16.size(), 4u);
  EXPECT_EQ(find(bf16, "grad_norm").bytes.value(), 4000);
  EXPECT_EQ(find(bf16, "adam").bytes.value(), 28000);
  EXPECT_EQ(find(bf16, "param_copy").bytes.value(), 6000);
  EXPECT_EQ(bytes_of(bf16).value(), 42000);
  // FP16 loss scaling adds the unscale and inf/nan check: the gradients read and written,
  // 8000 B more: 50 B per parameter.
  ModelSpec fp16 = tiny();
  fp16.precision = "fp16";
  EXPECT_EQ(bytes_of(optimizer_operators(1000, fp16, ExecutionSpec{})).value(), 50000);
}

GpuSpec a100_like() {
  GpuSpec g;
  g.sms = 108;
  return g;
}

TEST(ComputeModel, TilesAndWavesQuantizeGemms) {
  // 4096 x 4096 outputs in 256 x 128 tiles: 16 x 32 = 512 tiles, 5 waves of 108 SMs = 540
  // slots: 512 / 540. (128 x 128 tiles: 1024 in 10 waves, the same.)
  EXPECT_DOUBLE_EQ(gemm_efficiency({4096, 4096, 4096}, a100_like()), 512.0 / 540.0);
  // 1024 x 1024: 256 x 128 gives 32 tiles in one wave (32 / 108); 128 x 128 gives 64: 64 / 108.
  EXPECT_DOUBLE_EQ(gemm_efficiency({1024, 1024, 1024}, a100_like()), 64.0 / 108.0);
  // 100 x 100 fills 100^2 / 128^2 of one 128 x 128 tile on one SM of 108.
  EXPECT_DOUBLE_EQ(gemm_efficiency({100, 100, 4096}, a100_like()), 10000.0 / 16384.0 / 108.0);
  EXPECT_EQ(gemm_efficiency({100, 100, 4096}, GpuSpec{}), 1.0); // no SM count, no quantization
}

GpuSpec table_gpu() {
  GpuSpec g;
  for (size_t i = 0; i < 6; ++i) {
    g.flash_attention.d64[i] = FlopPerSecond(10e12 * static_cast<double>(i + 1));
    g.flash_attention.d128[i] = FlopPerSecond(20e12 * static_cast<double>(i + 1));
  }
  return g;
}

TEST(ComputeModel, AttentionRateInterpolatesTheMeasuredTable) {
  // d64 row 10, 20, ..., 60 TFLOP/s at s = 512 ... 16384; d128 row twice that.
  GpuSpec g = table_gpu();
  EXPECT_DOUBLE_EQ(attention_rate(64, 512, g).value(), 10e12);
  EXPECT_DOUBLE_EQ(attention_rate(64, 724.0773439350247, g).value(),
                   15e12);                                       // 2^9.5: halfway in log2
  EXPECT_DOUBLE_EQ(attention_rate(64, 100, g).value(), 10e12);   // held below 512
  EXPECT_DOUBLE_EQ(attention_rate(64, 1e6, g).value(), 60e12);   // and above 16384
  EXPECT_DOUBLE_EQ(attention_rate(96, 2048, g).value(), 45e12);  // halfway between 30 and 60
  EXPECT_DOUBLE_EQ(attention_rate(160, 2048, g).value(), 60e12); // held at d128
  // Without a table, attention runs at the GEMM ceiling: 989 TFLOP/s x 0.8.
  EXPECT_DOUBLE_EQ(attention_rate(64, 512, GpuSpec{}).value(), 989e12 * 0.8);
}

TEST(ComputeModel, AnOperatorTakesTheSlowerSideOfItsRooflinePlusALaunch) {
  // 1 TFLOP/s, 1 TB/s at 80% sustained, 1 us per kernel.
  GpuSpec g;
  g.peak = FlopPerSecond(1e12);
  g.matmul_efficiency = 1.0;
  g.hbm_bandwidth = BytesPerSecond(1e12);
  g.hbm_efficiency = 0.8;
  g.kernel_latency = Seconds(1e-6);
  Operators ops = layer_operators(tiny(), ExecutionSpec{}).mlp.forward;
  // fc1: 2048 FLOP = 2.048 ns; bytes (4 x 8 + 8 x 32 + 4 x 32) x 2 B = 832 B = 1.04 ns at
  // 0.8 TB/s: compute-bound.
  KernelTime fc1 = operator_time(find(ops, "fc1"), g);
  EXPECT_DOUBLE_EQ(fc1.compute.value(), 2048e-12);
  EXPECT_EQ(fc1.hbm.value(), 0.0);
  EXPECT_DOUBLE_EQ(fc1.overhead.value(), 1e-6);
  // The norm's 128 B at 0.8 TB/s: 160 ps, HBM-bound.
  KernelTime norm = operator_time(find(ops, "norm"), g);
  EXPECT_DOUBLE_EQ(norm.hbm.value(), 160e-12);
  EXPECT_EQ(norm.compute.value(), 0.0);
  // A block is the sum of its kernels: 5 forward kernels in the MLP block, 5 launches.
  EXPECT_DOUBLE_EQ(operators_time(ops, g).overhead.value(), 5e-6);
}

TEST(ComputeModel, AGpuWithFp8GemmsInEveryLayoutWritesNoTransposedCopy) {
  // The tiny layer in FP8 on the GPU above (1 TB/s at 0.8): fc1's input, 4 x 8 = 32 elements,
  // quantized per tensor moves 6 B each on Hopper-like GPUs (amax read, cast read, the FP8
  // copy and its transpose): 192 B, 240 ps. Where FP8 GEMMs take every layout (Blackwell)
  // the transpose is not written: 5 B each, 160 B, 200 ps. MXFP8 scales the two directions'
  // blocks apart and writes both copies on either: 32 x 4.0625 = 130 B, 162.5 ps.
  GpuSpec g;
  g.hbm_bandwidth = BytesPerSecond(1e12);
  g.hbm_efficiency = 0.8;
  ModelSpec m = tiny();
  m.fp8_recipe = Fp8Recipe::tensorwise;
  Operator quantize = find(layer_operators(m, ExecutionSpec{}).mlp.forward, "fp8_quantize");
  EXPECT_DOUBLE_EQ(operator_time(quantize, g).hbm.value(), 240e-12);
  g.fp8_any_layout = true;
  EXPECT_DOUBLE_EQ(operator_time(quantize, g).hbm.value(), 200e-12);
  m.fp8_recipe = Fp8Recipe::mxfp8;
  quantize = find(layer_operators(m, ExecutionSpec{}).mlp.forward, "fp8_quantize");
  EXPECT_DOUBLE_EQ(operator_time(quantize, g).hbm.value(), 162.5e-12);
}

TEST(ComputeModel, OverlappedLaunchesLeaveOnlyWhatTheWorkDoesNotCover) {
  // The GPU above (1 TFLOP/s, 0.8 TB/s, 1 us per kernel). launch_overlap: a kernel takes the
  // longer of its work and its launch. The tiny layer's 5 MLP forward kernels each work for
  // nanoseconds, so each takes its 1 us launch: 5 us in all, as without the overlap less the
  // work they now hide.
  Scenario s;
  s.model = tiny();
  s.system.gpu.peak = FlopPerSecond(1e12);
  s.system.gpu.matmul_efficiency = 1.0;
  s.system.gpu.hbm_bandwidth = BytesPerSecond(1e12);
  s.system.gpu.hbm_efficiency = 0.8;
  s.system.gpu.kernel_latency = Seconds(1e-6);
  KernelTime serial = layer_times(s).mlp.forward;
  s.execution.launch_overlap = true;
  KernelTime overlapped = layer_times(s).mlp.forward;
  EXPECT_DOUBLE_EQ(serial.overhead.value(), 5e-6);
  EXPECT_NEAR(overlapped.total().value(), 5e-6, 1e-18);
  EXPECT_DOUBLE_EQ(overlapped.compute.value(), serial.compute.value());
  // The paper's MLP block (one roofline kernel, 2 x 2 x 512 x 1000 x 4000 FLOP = 8.192 ms):
  // its launch hides behind its work entirely, forward and backward (two such kernels).
  ModelSpec mlp;
  mlp.kind = ModelKind::mlp;
  mlp.d_model = 1000, mlp.d_ff = 4000, mlp.seq_len = 512, mlp.layers = 1;
  s.model = mlp;
  BlockTime block = layer_times(s).mlp;
  EXPECT_EQ(block.forward.overhead.value(), 0.0);
  EXPECT_EQ(block.backward.overhead.value(), 0.0);
  EXPECT_NEAR(block.forward.compute.value(), 8.192e-3, 1e-12);
  s.execution.launch_overlap = false;
  EXPECT_DOUBLE_EQ(layer_times(s).mlp.forward.overhead.value(), 1e-6);
  EXPECT_DOUBLE_EQ(layer_times(s).mlp.backward.overhead.value(), 2e-6);
}

TEST(StepFlop, ModelFlopCountLayersAndLogitsAndHardwareFlopTheRecomputation) {
  // The tiny layer, 2 sequences of 4 tokens, vocabulary 100. Forward FLOP per microbatch:
  // QKV 1024 + out 512 + attention scores and values in full 4 T s d = 4 x 4 x 4 x 8 = 512 +
  // MLP 2 x 2048 = 6144; 2 microbatches: 12288. Logits 2 x 8 tokens x 8 x 100 = 12800. Model
  // FLOP: 3 x (12288 + 12800) = 75264. Full recomputation adds the layers' forward again
  // (12288), selective only the attention scores and values (2 x 512).
  ModelSpec m = tiny();
  m.vocab = 100;
  ExecutionSpec e;
  e.global_batch = 2;
  EXPECT_EQ(step_flop(m, e).model.value(), 75264);
  EXPECT_EQ(step_flop(m, e).hardware.value(), 75264);
  e.recompute = Recompute::full;
  EXPECT_EQ(step_flop(m, e).hardware.value(), 75264 + 12288);
  e.recompute = Recompute::selective;
  EXPECT_EQ(step_flop(m, e).hardware.value(), 75264 + 1024);
}

} // namespace
} // namespace trainsim
