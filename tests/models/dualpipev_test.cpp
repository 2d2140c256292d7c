// DualPipeV (models/schedule.cpp) in the step program, the layout and the memory check: its
// V puts two chunks on each stage, the first stage holding both ends of the model.
#include <gtest/gtest.h>

#include "models/stage_layout.hpp"
#include "models/workload_parts.hpp"
#include "step_program_fixtures.hpp"

namespace trainsim {
namespace {

using program_testing::grid;
using program_testing::scenario;
using program_testing::shape;

// An MLP of 4 layers on pp 2 under DualPipeV with 4 microbatches: one layer a chunk. Stage 0
// holds virtual stages 0 and 3, stage 1 holds 1 and 2.
Scenario v_shaped(int layers = 4) {
  ExecutionSpec e = grid(1, 1, 2, 4);
  e.schedule = PipelineSchedule::dualpipev;
  return scenario(ModelKind::mlp, layers, e);
}

TEST(DualPipeV, ChunksMapOntoTheStagesInAV) {
  ExecutionSpec e = v_shaped().execution;
  EXPECT_EQ(e.chunks(), 2);
  // Down the stages in chunk 0, back up in chunk 1: 0 1 | 2 3 on stages 0 1 | 1 0.
  EXPECT_EQ(e.virtual_stage(0, 0), 0);
  EXPECT_EQ(e.virtual_stage(1, 0), 1);
  EXPECT_EQ(e.virtual_stage(1, 1), 2);
  EXPECT_EQ(e.virtual_stage(0, 1), 3);
  for (int v = 0; v < 4; ++v) {
    auto [stage, chunk] = e.stage_and_chunk(v);
    EXPECT_EQ(e.virtual_stage(stage, chunk), v) << v;
  }
  EXPECT_EQ(e.head_stage(), 0);
  // 8 layers: virtual stage 2 (stage 1's chunk 1) starts at layer 4, stage 0's chunk 1 at 6.
  Scenario s = v_shaped(8);
  EXPECT_EQ(chunk_first_layer(s.model, s.execution, 1, 1), 4);
  EXPECT_EQ(chunk_first_layer(s.model, s.execution, 0, 1), 6);
}

TEST(DualPipeV, TheVsBottomHandsOverInMemoryAndTheFirstStageHoldsBothEnds) {
  // Stage 0 runs F0:0 F0:1 F0:2 F1:0 B1:0 F1:1 F0:3 B1:1 F1:2 B0:0 B1:2 F1:3 B0:1 B1:3 B0:2
  // B0:3 (tests/models/pipeline_path_test.cpp). Its chunk 0 is the first virtual stage: it
  // sends its forward down and receives its backward; its chunk 1 is the last: it receives
  // its forward from stage 1 and sends its backward back, starting from its own loss.
  EXPECT_EQ(shape(stage_program(v_shaped(), 0, false)),
            "C sendF C sendF C sendF recvF C C sendB recvF C C sendF C sendB recvF C recvB C "
            "C sendB recvF C recvB C C sendB recvB C recvB C waitS");
  // Stage 1 runs F0:0 F1:0 F0:1 F1:1 F0:2 B1:0 F1:2 B0:0 F0:3 B1:1 F1:3 B0:1 B1:2 B0:2 B1:3
  // B0:3: chunk 0 takes its input from stage 0 and hands its output to chunk 1 on the same
  // GPU, which sends it up; the backward the reverse. No transfer between the two chunks.
  EXPECT_EQ(shape(stage_program(v_shaped(), 1, false)),
            "recvF C C sendF recvF C C sendF recvF C recvB C C sendF C sendB recvF C recvB C "
            "C sendF C sendB recvB C C sendB recvB C C sendB waitS");
}

TEST(DualPipeV, TheFirstStageHoldsTheEmbeddingAndTheHead) {
  // A transformer of vocabulary 16 and d_model 8 (tp 1): the embedding's 16 x 8 = 128
  // parameters and the LM head's 128 both on stage 0, none on stage 1.
  Scenario s = v_shaped();
  s.model.kind = ModelKind::transformer;
  s.model.vocab = 16;
  s.model.rotary = true;
  EXPECT_DOUBLE_EQ(workload_parts::vocabulary_params(s.model, s.execution, 0), 256.0);
  EXPECT_DOUBLE_EQ(workload_parts::vocabulary_params(s.model, s.execution, 1), 0.0);
}

TEST(DualPipeV, AStageKeepsTwoPpPlusOneChunksOfActivations) {
  // DualPipe's README (deepseek-ai/DualPipe): PP + 1 stages' activations a device, PP the
  // virtual stages. Stage 0's order above holds 1 2 3 4 3 4 5 4 5 4 3 4 3 2 1 0 chunks after
  // each pass: 5 = 2 x 2 + 1 one-layer chunks at its peak, and so does stage 1's. 1F1B over the
  // same 2 stages of 2 layers holds 2 microbatches x 2 layers on stage 0.
  Scenario s = v_shaped();
  EXPECT_EQ(peak_held_layers(s.model, s.execution, 0), 5.0);
  EXPECT_EQ(peak_held_layers(s.model, s.execution, 1), 5.0);
  s.execution.schedule = PipelineSchedule::one_f_one_b;
  EXPECT_EQ(peak_held_layers(s.model, s.execution, 0), 4.0);
}

} // namespace
} // namespace trainsim
