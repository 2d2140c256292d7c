#include "models/pipeline_path.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace trainsim {
namespace {

// f = 1 s forward and b = 2 s backward on every stage (per chunk: divided by the chunks).
PassTimes uniform(int stages, int chunks = 1) {
  PassTimes t;
  for (int j = 0; j < stages * chunks; ++j) {
    t.forward.emplace_back(1.0 / chunks);
    t.backward.emplace_back(2.0 / chunks);
  }
  return t;
}

double last(const std::vector<Seconds>& finish) {
  return std::max_element(finish.begin(), finish.end())->value();
}

TEST(PipelinePath, OneStageRunsItsPassesBackToBack) {
  // m (f + b) = 4 x 3 s, nothing to wait for.
  EXPECT_DOUBLE_EQ(
      last(pipeline_finish(PipelineSchedule::one_f_one_b, 4, 1, uniform(1), Seconds(0.5))), 12.0);
}

TEST(PipelinePath, FreeSendsGiveTheTextbookBubble) {
  // Without transfer time, GPipe and 1F1B take (m + p - 1)(f + b): 4 stages, 8 microbatches
  // -> 11 x 3 s. Interleaving v = 2 chunks divides the bubble by v: (8 + 3/2) x 3 s.
  for (PipelineSchedule s : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b})
    EXPECT_DOUBLE_EQ(last(pipeline_finish(s, 8, 1, uniform(4), Seconds(0))), 33.0) << to_string(s);
  EXPECT_DOUBLE_EQ(
      last(pipeline_finish(PipelineSchedule::interleaved, 8, 2, uniform(4, 2), Seconds(0))), 28.5);
}

TEST(PipelinePath, OneMicrobatchIsTheRoundTripAndEachStageWaitsForItsLastSend) {
  // Stage 0: F0 [0, f]; stage 1: F0 [f+s, 2f+s], B0 until 2f+b+s, its gradient arrives at
  // 2f+b+2s (stage 1 is done then); stage 0: B0 until 2f+2b+2s. f=1, b=2, s=0.5.
  std::vector<Seconds> finish =
      pipeline_finish(PipelineSchedule::one_f_one_b, 1, 1, uniform(2), Seconds(0.5));
  EXPECT_DOUBLE_EQ(finish[0].value(), 7.0);
  EXPECT_DOUBLE_EQ(finish[1].value(), 5.0);
}

TEST(PipelinePath, TwoStage1F1BPaysOneSendPerMicrobatch) {
  // Stage 0 runs F0 F1 B0 F2 B1 F3 B2 ..., stage 1 F0 B0 F1 B1 .... Between the end of
  // stage 0's B(k-2) and the start of its B(k) it runs F(k) B(k-1) F(k+1) (2f + b), while
  // B(k) needs F(k) (f), a send, stage 1's F(k) B(k) (f + b) and a send back: 2f + b + 2s.
  // So each pair of microbatches adds two sends: with B0 starting at 2f + b + 2s, stage 0
  // ends at (m + 1)(f + b) + m s for m >= 2.
  for (int m : {2, 4, 8}) {
    double s = 0.25;
    EXPECT_DOUBLE_EQ(
        last(pipeline_finish(PipelineSchedule::one_f_one_b, m, 1, uniform(2), Seconds(s))),
        (m + 1) * 3.0 + m * s)
        << "m=" << m;
  }
}

TEST(PipelinePath, UniformStagesTakeTheSlotCountOfStageTimes) {
  // pipeline_slots() is the closed form of the free-send longest path for equal passes:
  // (8 + 3) x 3 s for 1F1B and GPipe, (8 + 3/2) x 3 s interleaved (test above); one
  // microbatch through 4 stages takes 4 stage times, even with 4 chunks (1 + 3/4 < 4).
  EXPECT_EQ(pipeline_slots(8, 4), 11.0);
  EXPECT_EQ(pipeline_slots(8, 4, 2), 9.5);
  for (PipelineSchedule s : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b})
    EXPECT_DOUBLE_EQ(last(pipeline_finish(s, 8, 1, uniform(4), Seconds(0))),
                     pipeline_slots(8, 4) * 3.0);
  EXPECT_DOUBLE_EQ(
      last(pipeline_finish(PipelineSchedule::interleaved, 8, 2, uniform(4, 2), Seconds(0))),
      pipeline_slots(8, 4, 2) * 3.0);
  EXPECT_EQ(pipeline_slots(1, 4, 4), 4.0);
}

} // namespace
} // namespace trainsim
