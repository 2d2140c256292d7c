// The pipeline split: which layers each stage and chunk holds, and the peak of activations a
// stage keeps under its schedule.
#include "models/stage_layout.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "models/workload.hpp"

namespace trainsim {
namespace {

Scenario split(int layers, int pp, int chunks, long microbatches) {
  Scenario s;
  s.model.layers = layers;
  s.model.d_model = 8;
  s.model.d_ff = 32;
  s.model.heads = 2;
  s.model.seq_len = 4;
  s.execution.pp = pp;
  s.execution.global_batch = microbatches;
  if (chunks > 1) {
    s.execution.schedule = PipelineSchedule::interleaved;
    s.execution.interleave = chunks;
  }
  return s;
}

std::vector<int> stages(const Scenario& s) {
  std::vector<int> out;
  for (int j = 0; j < s.execution.pp; ++j)
    out.push_back(stage_layer_count(s.model, s.execution, j));
  return out;
}

TEST(StageLayout, LlamaThreesEmbeddingAndLossTakeALayersPlace) {
  // Llama 3 405B (paper, section 3.3.2): 126 layers on pp 16 with 8 chunks; the embedding
  // and the loss count as one layer each: (126 + 2) / (16 x 8) = 1 per virtual stage, so the
  // first chunk of stage 0 holds only the embedding and the last of stage 15 only the loss.
  Scenario s = split(126, 16, 8, 16);
  s.execution.embedding_as_layer = s.execution.loss_as_layer = true;
  ASSERT_TRUE(layout_problem(s.model, s.execution).empty());
  EXPECT_EQ(chunk_layers(s.model, s.execution, 0, 0), 0);
  EXPECT_EQ(chunk_layers(s.model, s.execution, 15, 7), 0);
  EXPECT_EQ(chunk_layers(s.model, s.execution, 15, 6), 1);
  std::vector<int> per_stage = stages(s);
  EXPECT_EQ(per_stage.front(), 7);
  EXPECT_EQ(per_stage[7], 8);
  EXPECT_EQ(per_stage.back(), 7);
  EXPECT_EQ(std::accumulate(per_stage.begin(), per_stage.end(), 0), 126);
}

TEST(StageLayout, EndStagesCanBeSetAndTheMiddleSharesTheRest) {
  // 30 layers on pp 4: first 6, last 6, the middle two stages (30 - 12) / 2 = 9 each. Without
  // the keys, the even split gives the first 30 % 4 = 2 stages one more: 8 8 7 7.
  Scenario s = split(30, 4, 1, 4);
  EXPECT_EQ(stages(s), (std::vector<int>{8, 8, 7, 7}));
  s.execution.first_stage_layers = s.execution.last_stage_layers = 6;
  EXPECT_EQ(stages(s), (std::vector<int>{6, 9, 9, 6}));
  // Only the first set: the other 3 stages share 24.
  s.execution.last_stage_layers = 0;
  EXPECT_EQ(stages(s), (std::vector<int>{6, 8, 8, 8}));
  // Without interleaving the slots work on stages: (30 + 2) / 4 = 8, less one at each end.
  s = split(30, 4, 1, 4);
  s.execution.embedding_as_layer = s.execution.loss_as_layer = true;
  EXPECT_EQ(stages(s), (std::vector<int>{7, 8, 8, 7}));
}

TEST(StageLayout, TheDenseLayersAreTheModelsFirst) {
  // 8 layers over pp 2 x 2 chunks of 2: virtual stage 0 (stage 0, chunk 0) holds layers 0-1,
  // 1 (stage 1, chunk 0) 2-3, 2 (stage 0, chunk 1) 4-5, 3 (stage 1, chunk 1) 6-7. The first 3
  // dense: 2 on stage 0's first chunk, 1 on stage 1's, none after.
  Scenario s = split(8, 2, 2, 4);
  s.model.experts = 4, s.model.dense_layers = 3;
  EXPECT_EQ(chunk_first_layer(s.model, s.execution, 0, 1), 4);
  EXPECT_EQ(chunk_first_layer(s.model, s.execution, 1, 0), 2);
  EXPECT_EQ(chunk_dense_layers(s.model, s.execution, 0, 0), 2);
  EXPECT_EQ(chunk_dense_layers(s.model, s.execution, 1, 0), 1);
  EXPECT_EQ(chunk_dense_layers(s.model, s.execution, 0, 1), 0);
  EXPECT_EQ(stage_dense_layers(s.model, s.execution, 0), 2);
  EXPECT_EQ(stage_dense_layers(s.model, s.execution, 1), 1);
}

TEST(StageLayout, SplitsThatDoNotDivideNameTheirKey) {
  Scenario s = split(31, 4, 1, 4); // 31 + 2 = 33 slots over 4 stages
  s.execution.embedding_as_layer = s.execution.loss_as_layer = true;
  LayoutProblem p = layout_problem(s.model, s.execution);
  EXPECT_EQ(p.key, "execution.embedding_as_layer");
  EXPECT_EQ(p.why, "the model's 31 layers and 2 for the embedding and loss do not divide into pp "
                   "x chunks = 4 virtual stages");
  s.execution.first_stage_layers = 5; // both ways at once
  EXPECT_EQ(layout_problem(s.model, s.execution).key, "execution.embedding_as_layer");
  s.execution.embedding_as_layer = s.execution.loss_as_layer = false;
  p = layout_problem(s.model, s.execution); // 26 layers over 3 stages
  EXPECT_EQ(p.key, "execution.first_stage_layers");
  EXPECT_EQ(p.value, "5");
  EXPECT_EQ(p.why, "leaves 26 of the model's 31 layers for 3 other stages, which does not split "
                   "evenly with at least one layer each");
  s = split(8, 1, 1, 4);
  s.execution.last_stage_layers = 2;
  EXPECT_EQ(layout_problem(s.model, s.execution).why, "needs pp of at least 2");
  s = split(12, 2, 2, 4); // first stage 5 layers, not a multiple of 2 chunks
  s.execution.first_stage_layers = 5;
  EXPECT_EQ(layout_problem(s.model, s.execution).why,
            "gives stage 0 5 layers, which do not divide into its 2 interleaved chunks");
  s = split(10, 2, 2, 4); // 10 layers over 4 chunks, no key to even it out
  EXPECT_EQ(layout_problem(s.model, s.execution).key, "execution.interleave");
}

TEST(StageLayout, AWrittenLayoutPlacesEveryVirtualStage) {
  // DeepSeek-V3's recipe layout on pp 2 x 8 chunks: virtual stage v = chunk x 2 + stage holds
  // 4 layers but the last (v 15: stage 1, chunk 7), which holds 1 and the module. Stage 0:
  // chunks 0..7 at v 0, 2, .., 14: 8 x 4 = 32 layers; stage 1: 7 x 4 + 1 + 1 module = 30.
  Scenario s = split(61, 2, 8, 32);
  s.model.mtp_layers = 1;
  s.execution.pipeline_layout = parse_pipeline_layout("Et*4|(t*4|)*14tmL").layout;
  EXPECT_TRUE(layout_problem(s.model, s.execution).empty());
  EXPECT_EQ(stages(s), (std::vector<int>{32, 30}));
  EXPECT_EQ(chunk_layers(s.model, s.execution, 1, 7), 2);
  EXPECT_EQ(chunk_layers(s.model, s.execution, 1, 6), 4);
  // The first layer of stage 1's last chunk: the 15 virtual stages before it, 15 x 4 = 60.
  EXPECT_EQ(chunk_first_layer(s.model, s.execution, 1, 7), 60);
  // Plain 1F1B on pp 4 with DeepSeek's (4, 1) layout: 16, 16, 16, 13 layers.
  s = split(61, 4, 1, 8);
  s.execution.pipeline_layout = parse_pipeline_layout("E(t*16|)*3t*13L").layout;
  EXPECT_EQ(stages(s), (std::vector<int>{16, 16, 16, 13}));
}

TEST(StageLayout, AWrittenLayoutMustFitThePlanAndTheModel) {
  Scenario s = split(8, 2, 2, 4);
  s.execution.pipeline_layout = parse_pipeline_layout("Ett|tt|ttL").layout;
  LayoutProblem p = layout_problem(s.model, s.execution);
  EXPECT_EQ(p.key, "execution.pipeline_layout");
  EXPECT_EQ(p.value, "Ett|tt|ttL");
  EXPECT_EQ(p.why, "has 3 virtual stages; pp x interleave is 4");
  // 2 + 2 + 2 + 1 = 7 layers against 8.
  s.execution.pipeline_layout = parse_pipeline_layout("Ett|tt|tt|tL").layout;
  EXPECT_EQ(layout_problem(s.model, s.execution).why,
            "places 7 transformer layers (t); the model has 8");
  s.execution.pipeline_layout = parse_pipeline_layout("Ett|tt|tt|ttmL").layout;
  EXPECT_EQ(layout_problem(s.model, s.execution).why,
            "places 1 multi-token-prediction modules (m); the model's mtp_layers is 0");
  s.execution.pipeline_layout = parse_pipeline_layout("Ett|tt|tt|ttL").layout;
  EXPECT_TRUE(layout_problem(s.model, s.execution).empty());
  s.execution.first_stage_layers = 4;
  EXPECT_EQ(layout_problem(s.model, s.execution).why,
            "cannot be combined with first_stage_layers, last_stage_layers, embedding_as_layer "
            "or loss_as_layer: the layout already places every layer");
}

TEST(StageLayout, PeakHeldLayersFollowTheSchedule) {
  // 8 layers on pp 4 (2 each), 8 microbatches. 1F1B: stage j holds pp - j microbatches at
  // most: 4 x 2 = 8 layers on stage 0, 1 x 2 on stage 3. GPipe: all 8 x 2 = 16.
  Scenario s = split(8, 4, 1, 8);
  EXPECT_EQ(peak_held_layers(s.model, s.execution, 0), 8.0);
  EXPECT_EQ(peak_held_layers(s.model, s.execution, 3), 2.0);
  s.execution.schedule = PipelineSchedule::gpipe;
  EXPECT_EQ(peak_held_layers(s.model, s.execution, 0), 16.0);
  // Interleaved, 8 layers on pp 2 x 2 chunks (2 each), 4 microbatches: stage 0 warms up with
  // 2 (2 - 1) + (2 - 1) 2 = 4 forwards and runs one more before its first backward: 5 chunk
  // passes, 10 layers (Korthikanti et al. 2022: 4 layers x pp 2 x (1 + (2 - 1) / (2 x 2))).
  s = split(8, 2, 2, 4);
  EXPECT_EQ(peak_held_layers(s.model, s.execution, 0), 10.0);
  // With the embedding and loss as layers, 6 layers: 2 per virtual stage, chunk 0 of stage 0
  // holds 1. Stage 0 runs F(chunk 0) F0 F1 F1, then F0 B1 F0 B1 F1 B0 F1 B0 and drains: held
  // 1 2 4 6, 7 5 6 4 6 5 7 6: the peak is 7.
  s = split(6, 2, 2, 4);
  s.execution.embedding_as_layer = s.execution.loss_as_layer = true;
  EXPECT_EQ(peak_held_layers(s.model, s.execution, 0), 7.0);
}

TEST(StageLayout, MemoryIsTheWorstStages) {
  // 12 layers on pp 2 under 1F1B, 2 microbatches: first stage 2 layers x 2 in flight = 4
  // layer activations, last stage 10 x 1 = 10: the last stage is the one that must fit. A
  // transformer layer keeps 34 bytes per token and d_model: 4 tokens x 8 x 34 = 1088.
  Scenario s = split(12, 2, 1, 2);
  s.execution.first_stage_layers = 2;
  MemoryUse use = memory_per_gpu(s.model, s.execution, s.system.gpu);
  EXPECT_DOUBLE_EQ(use.activations.value(), 10 * 4 * 8 * 34.0);
}

TEST(StageLayout, ActivationsFollowTheArchitecture) {
  // One layer, one microbatch of 4 tokens, d_model 8 on tp 2. GPT (MHA, dropout, 4 d_model
  // GeLU MLP) with sequence parallelism: 34 bytes per token and d_model, split: 4 x 8 x 34 / 2.
  Scenario s = split(1, 1, 1, 1);
  s.execution.tp = 2;
  s.execution.sequence_parallel = true;
  EXPECT_DOUBLE_EQ(memory_per_gpu(s.model, s.execution, s.system.gpu).activations.value(), 4 * 8 * 34.0 / 2);
  // Without it the norms' inputs, the QKV and fc1 inputs and the masks are whole (Korthikanti
  // et al. 2022, eq. 2: 10 + 24 / t): 4 x 8 x (10 + 12).
  s.execution.sequence_parallel = false;
  EXPECT_DOUBLE_EQ(memory_per_gpu(s.model, s.execution, s.system.gpu).activations.value(), 4 * 8 * 22.0);
  // Llama-like: no dropout, 1 of 2 heads for keys and values (kv width 4), SwiGLU of d_ff 26
  // (3.25 d_model). Whole: norms 2 x 8 + QKV 8 + fc1 8 words = 32 words; split: Q 8 + K, V
  // 2 x 4 + out_proj 8 + 3 x 26 hidden = 102 words. 4 tokens x 2 B x (32 + 102) / 2.
  s.execution.sequence_parallel = true;
  s.model.dropout = false;
  s.model.kv_heads = 1;
  s.model.gated_mlp = true;
  s.model.d_ff = 26;
  EXPECT_DOUBLE_EQ(memory_per_gpu(s.model, s.execution, s.system.gpu).activations.value(),
                   4 * 2.0 * (32 + 102) / 2);
  // A QK norm keeps its input, q and k before it: 8 + 4 words more, split.
  s.model.qk_norm = true;
  EXPECT_DOUBLE_EQ(memory_per_gpu(s.model, s.execution, s.system.gpu).activations.value(),
                   4 * 2.0 * (32 + 102 + 12) / 2);
}

} // namespace
} // namespace trainsim
