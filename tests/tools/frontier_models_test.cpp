// scenarios/models/: today's frontier models as scenario files. Each loads, and its parameter
// count and FLOP per token are what its publisher says, derived here by hand.
#include <gtest/gtest.h>

#include <string>

#include "models/workload.hpp"
#include "tools/io/scenario_loader.hpp"

namespace trainsim {
namespace {

Scenario model_file(const std::string& name) {
  return load_scenario(TRAINSIM_SOURCE_DIR "/scenarios/models/" + name).scenario;
}

// Model FLOP per token, forward and backward (the report's `model` line).
double flop_per_token(const Scenario& s) {
  return model_flop_per_step(s.model, s.execution).value() / tokens_per_step(s.model, s.execution);
}

// Within `fraction` of `published`.
::testing::AssertionResult near(double value, double published, double fraction) {
  if (std::abs(value / published - 1.0) <= fraction) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << value << " is not within " << fraction * 100 << "% of " << published;
}

TEST(FrontierModels, Qwen3_235B_A22B) {
  // Per layer: attention q 4096 x 8192 = 33,554,432, k and v 4096 x 512 = 2,097,152 each, out
  // 8192 x 4096 = 33,554,432: 71,303,168; each expert 3 x 4096 x 1536 = 18,874,368, 128 of
  // them 2,415,919,104. 94 layers: 94 x 2,487,222,272 = 233,798,893,568, plus the untied
  // embedding and head 2 x 151,936 x 4096 = 1,244,659,712: 235,043,553,280 (the report: 235 B).
  // Active: 8 experts, 94 x (71,303,168 + 150,994,944) + 1,244,659,712 = 22,140,682,240
  // (the report: 22 B, +0.6%).
  Scenario s = model_file("qwen3-235b-a22b.yaml");
  ModelParameters p = model_parameters(s.model);
  EXPECT_DOUBLE_EQ(p.total, 235043553280.0);
  EXPECT_DOUBLE_EQ(p.active, 22140682240.0);
  EXPECT_TRUE(near(p.total, 235e9, 0.01));
  EXPECT_TRUE(near(p.active, 22e9, 0.01));
  // FLOP per token, forward and backward (3 x forward): per layer 2 x 71,303,168 for the
  // projections, 4 x 4096 x 8192 = 134,217,728 for the scores and weighted values counted in
  // full, 2 x 150,994,944 for the experts: 578,813,952; x 94 = 54,408,511,488, plus the logits
  // 2 x 4096 x 151,936 = 1,244,659,712: x 3 = 166,959,513,600. Megatron-Core's
  // num_floating_point_operations halves the scores for the causal mask: 94 x 3 x 67,108,864
  // less, 148,034,813,952, which is what Megatron-Bridge's table implies (25.11, DGX-H100:
  // 233 TFLOP/s per GPU at 1,575 tokens/s per GPU, 147.9 G); docs/compute-model.md.
  double per_token = flop_per_token(s);
  EXPECT_DOUBLE_EQ(per_token, 166959513600.0);
  EXPECT_TRUE(near(per_token - 94 * 3 * 67108864.0, 233e12 / 1575, 0.01));
}

TEST(FrontierModels, Llama3_405B_Fp8) {
  // Per layer: q and out 16384 x 16384 = 268,435,456 each, k and v 16384 x 1024 = 16,777,216
  // each: 570,425,344; the SwiGLU MLP 3 x 16384 x 53248 = 2,617,245,696: 3,187,671,040. 126
  // layers: 401,646,551,040, plus the untied embedding and head 2 x 128,256 x 16384 =
  // 4,202,692,608: 405,849,243,648 (Meta: 405 B, +0.2%). Dense: all of it active. FP8 changes
  // neither count.
  Scenario s = model_file("llama3-405b-fp8.yaml");
  ModelParameters p = model_parameters(s.model);
  EXPECT_DOUBLE_EQ(p.total, 405849243648.0);
  EXPECT_DOUBLE_EQ(p.active, p.total);
  EXPECT_TRUE(near(p.total, 405e9, 0.01));
  // FLOP per token, 3 x forward: per layer 2 x 3,187,671,040 for the projections and MLP, the
  // scores and weighted values in full 4 x 8192 x 16384 = 536,870,912: 6,912,212,992; x 126 =
  // 870,938,836,992; logits 2 x 16384 x 128,256 = 4,202,692,608: x 3 = 2,625,424,588,800.
  // Megatron-Core halves the scores for the causal mask, 3 x 126 x 268,435,456 less:
  // 2,523,955,986,432, what Megatron-Bridge's table implies (25.11, DGX-B200, FP8-CS: 1667
  // TFLOP/s per GPU at 661 tokens/s per GPU, 2.522 T).
  double per_token = flop_per_token(s);
  EXPECT_DOUBLE_EQ(per_token, 2625424588800.0);
  EXPECT_TRUE(near(per_token - 3 * 126 * 268435456.0, 1667e12 / 661, 0.01));
}

TEST(FrontierModels, DeepSeekV3) {
  // Per layer, latent attention: query down 7168 x 1536 = 11,010,048 and up 1536 x 128 x 192 =
  // 37,748,736; key/value down 7168 x (512 + 64) = 4,128,768 and up 512 x 128 x 256 =
  // 16,777,216; output 128 x 128 x 7168 = 117,440,512: 187,105,280. 61 of them 11,413,422,080.
  // 3 dense layers of 3 x 7168 x 18432 = 396,361,728: 1,189,085,184. 58 expert layers, each
  // 256 routed and 1 shared of 3 x 7168 x 2048 = 44,040,192: 58 x 257 x 44,040,192 =
  // 656,463,101,952. Embedding and head 2 x 129,280 x 7168 = 1,853,358,080. Total
  // 670,918,967,296 (the report: 671 B). Active, 8 routed and the shared one: 58 x 9 x
  // 44,040,192 = 22,988,980,224 in place of the experts: 37,444,845,568. The report says 37 B
  // (+1.2%); its README_WEIGHTS.md 36.7 B (+2.0%), a gap an independent count from the config
  // finds too (docs/compute-model.md). The router's 58 x 256 x 7168 = 0.1 B are left out.
  // The file's model has its multi-token-prediction module; without it first:
  Scenario s = model_file("deepseek-v3.yaml");
  ASSERT_EQ(s.model.mtp_layers, 1);
  s.model.mtp_layers = 0;
  ModelParameters p = model_parameters(s.model);
  EXPECT_DOUBLE_EQ(p.total, 670918967296.0);
  EXPECT_DOUBLE_EQ(p.active, 37444845568.0);
  EXPECT_TRUE(near(p.total, 671e9, 0.01));
  EXPECT_TRUE(near(p.active, 37e9, 0.015));
  // FLOP per token, 3 x forward: per layer the projections 2 x 187,105,280, the scores and
  // weighted values in full 2 x 4096 x 128 x (192 + 128) = 335,544,320, the MLP 2 x 9 x
  // 44,040,192 = 792,723,456 (a dense layer's 2 x 396,361,728 is the same): 1,502,478,336;
  // x 61 = 91,651,178,496; logits 2 x 7168 x 129,280 = 1,853,358,080: 280,513,609,728.
  // Megatron-Core halves the scores for the causal mask: 3 x 61 x 167,772,160 less is
  // 249,811,304,448, which Megatron-Bridge's table implies (25.11, DGX-GB300, BF16, without
  // MTP: 961 TFLOP/s per GPU at 3,848 tokens/s per GPU, 249.7 G).
  double per_token = flop_per_token(s);
  EXPECT_DOUBLE_EQ(per_token, 280513609728.0);
  EXPECT_TRUE(near(per_token - 3 * 61 * 167772160.0, 961e12 / 3848, 0.01));
  // The module: one more expert layer, 187,105,280 + 257 x 44,040,192 = 11,505,434,624, and its
  // projection 2 x 7168 x 7168 = 102,760,448: 682,527,162,368 in all (the report: 685 B with
  // 14 B of module, which counts the module's own copies of the embedding and the head, 1.85 B,
  // that Megatron-Core shares: -0.4%).
  s.model.mtp_layers = 1;
  EXPECT_DOUBLE_EQ(model_parameters(s.model).total, 682527162368.0);
  EXPECT_TRUE(near(model_parameters(s.model).total, 685e9, 0.01));
  // Its FLOP as Megatron-LM counts them: 3 x (a layer 1,502,478,336 + logits 1,853,358,080 +
  // 2 x (the projection 102,760,448 + norms 3 x 7168)) = 10,684,200,960 more: 291,197,810,688.
  // Less the causal half of 62 layers' scores, 3 x 62 x 167,772,160: 259,992,188,928; the table
  // (25.11, DGX-B200, FP8-MX, with MTP: 557 TFLOP/s at 2,139 tokens/s, 260.4 G) is 0.16% above.
  per_token = flop_per_token(s);
  EXPECT_DOUBLE_EQ(per_token, 291197810688.0);
  EXPECT_TRUE(near(per_token - 3 * 62 * 167772160.0, 557e12 / 2139, 0.01));
}

TEST(FrontierModels, KimiK2) {
  // DeepSeek-V3's shapes with 64 heads: attention q 7168 x 1536 + 1536 x 64 x 192 = 29,884,416,
  // kv 7168 x 576 + 512 x 64 x 256 = 12,517,376, out 64 x 128 x 7168 = 58,720,256: 101,122,048,
  // x 61 = 6,168,444,928; 1 dense layer 3 x 7168 x 18432 = 396,361,728; 60 expert layers of
  // 384 routed and 1 shared expert of 44,040,192: 1,017,328,435,200; embedding and head 2 x
  // 163,840 x 7168 = 2,348,810,240. Total 1,026,242,052,096; active, 9 experts a layer,
  // 32,695,320,576. Its README rounds them to "1 trillion" (+2.6%) and "32 billion" (+2.2%);
  // an independent count from its configuration gives 1,026.4 B with the router's 0.17 B.
  Scenario s = model_file("kimi-k2.yaml");
  ModelParameters p = model_parameters(s.model);
  EXPECT_DOUBLE_EQ(p.total, 1026242052096.0);
  EXPECT_DOUBLE_EQ(p.active, 32695320576.0);
  EXPECT_TRUE(near(p.total, 1e12, 0.03));
  EXPECT_TRUE(near(p.active, 32e9, 0.03));
  // FLOP per token, 3 x forward: per layer 2 x 101,122,048 for the projections, the scores in
  // full 2 x 4096 x 64 x 320 = 167,772,160, the MLP 2 x 9 x 44,040,192 = 792,723,456:
  // 1,162,739,712, x 61 = 70,927,122,432; logits 2 x 7168 x 163,840 = 2,348,810,240:
  // 219,827,798,016. Halving the scores as Megatron-Core does, 204,476,645,376, which
  // Megatron-Bridge's table implies (26.06, DGX-GB300: 1099 TFLOP/s at 5,372 tokens/s, 204.6 G).
  double per_token = flop_per_token(s);
  EXPECT_DOUBLE_EQ(per_token, 219827798016.0);
  EXPECT_TRUE(near(per_token - 3 * 61 * 83886080.0, 1099e12 / 5372, 0.01));
}

TEST(FrontierModels, GptOss120B) {
  // Per layer: attention q 2880 x 4096 = 11,796,480, k and v 2880 x 512 = 1,474,560 each, out
  // 4096 x 2880 = 11,796,480, and 64 sinks: 26,542,144; 128 experts of 3 x 2880 x 2880 =
  // 24,883,200, 3,185,049,600. 36 layers: 115,617,302,784; embedding and head 2 x 201,088 x
  // 2880 = 1,158,266,880: 116,775,569,664 (its model card: 116.8 B; README: 117 B). Active,
  // 4 experts: 36 x (26,542,144 + 99,532,800) + 1,158,266,880 = 5,696,964,864; OpenAI counts
  // it without the embedding's 579,133,440: 5,117,831,424 (5.1 B). Biases and the router
  // (0.04 B) are left out.
  Scenario s = model_file("gpt-oss-120b.yaml");
  ModelParameters p = model_parameters(s.model);
  EXPECT_DOUBLE_EQ(p.total, 116775569664.0);
  EXPECT_DOUBLE_EQ(p.active, 5696964864.0);
  EXPECT_TRUE(near(p.total, 116.8e9, 0.01));
  EXPECT_TRUE(near(p.active - 201088.0 * 2880, 5.1e9, 0.01));
  // FLOP per token, 3 x forward: per layer the projections 2 x 26,542,080 = 53,084,160 and the
  // experts 2 x 4 x 24,883,200 = 199,065,600; the scores and weighted values in full over the
  // keys a query sees, 4 x 128 x 4096 = 2,097,152 in the 18 windowed layers and 4 x 4096 x
  // 4096 = 67,108,864 in the 18 full ones; logits 2 x 2880 x 201,088 = 1,158,266,880:
  // 3 x 11,481,366,528 = 34,444,099,584. Megatron-Bridge's flop_utils counts the causal
  // keys, s / 2 in full layers and 128 - 128 x 127 / 8192 = 126.016 in windowed ones, 1.81 G
  // less: 32.63 G. Megatron-LM's formula counts GPT-OSS's gated MLP as two GEMMs and no window
  // (27.2 G), which the 25.11 table's DGX-H100 row gives: 153 TFLOP/s at 5,630 tokens/s.
  double per_token = flop_per_token(s);
  EXPECT_DOUBLE_EQ(per_token, 34444099584.0);
}

} // namespace
} // namespace trainsim
