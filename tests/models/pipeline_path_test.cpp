#include "models/pipeline_path.hpp"
#include "models/schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

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

TEST(PipelinePath, InterleavedGroupsFollowMegatronCoresScheduleTable) {
  // Megatron-Core's example (pipeline_parallel/schedules.py, get_schedule_table): PP 2, VP 2,
  // microbatch groups of N = 3, M = 5 microbatches: the forwards visit microbatches
  // 0 1 2 0 1 2 3 4 3 4 in chunks 0 0 0 1 1 1 0 0 1 1; the backwards the same microbatches
  // with the chunks reversed. Stage 0 runs 2 (2 - 0 - 1) + (2 - 1) 3 = 5 warm-up forwards,
  // stage 1 0 + 3 = 3, and the steady state starts with a forward: 6 and 4 forwards come
  // before the first backward.
  for (int stage : {0, 1}) {
    std::vector<PipelineOp> order =
        pipeline_order(PipelineSchedule::interleaved, stage, 2, 5, 2, 3);
    std::vector<int> fwd_mb, fwd_chunk, bwd_mb, bwd_chunk;
    int warmup = -1;
    for (size_t k = 0; k < order.size(); ++k) {
      const PipelineOp& op = order[k];
      (op.forward ? fwd_mb : bwd_mb).push_back(op.microbatch);
      (op.forward ? fwd_chunk : bwd_chunk).push_back(op.chunk);
      if (!op.forward && warmup < 0) warmup = static_cast<int>(k);
    }
    EXPECT_EQ(fwd_mb, (std::vector<int>{0, 1, 2, 0, 1, 2, 3, 4, 3, 4}));
    EXPECT_EQ(fwd_chunk, (std::vector<int>{0, 0, 0, 1, 1, 1, 0, 0, 1, 1}));
    EXPECT_EQ(bwd_mb, fwd_mb);
    EXPECT_EQ(bwd_chunk, (std::vector<int>{1, 1, 1, 0, 0, 0, 1, 1, 0, 0}));
    EXPECT_EQ(warmup, stage == 0 ? 6 : 4);
  }
  // Groups of pp (the default) when M is a multiple of it: pp 2, M 4, VP 2 visits 0 1 0 1 2 3 2 3.
  std::vector<int> mb;
  for (const PipelineOp& op : pipeline_order(PipelineSchedule::interleaved, 1, 2, 4, 2))
    if (op.forward) mb.push_back(op.microbatch);
  EXPECT_EQ(mb, (std::vector<int>{0, 1, 0, 1, 2, 3, 2, 3}));
}

// "F0:3" for the forward of microbatch 3 in chunk 0, "B1:0" for a backward; a pair's two in [].
std::string passes(const std::vector<PipelineOp>& order) {
  std::string out;
  for (size_t k = 0; k < order.size(); ++k) {
    const PipelineOp& op = order[k];
    bool opens = op.steady && op.forward, closes = op.steady && !op.forward;
    out += (k > 0 ? " " : "") + std::string(opens ? "[" : "") + (op.forward ? "F" : "B") +
           std::to_string(op.chunk) + ":" + std::to_string(op.microbatch) + (closes ? "]" : "");
  }
  return out;
}

TEST(PipelinePath, DualPipeVRunsDualPipesStepsInItsV) {
  // dualpipev.py's step() on 2 ranks and 4 microbatches, its W chunks dropped (each backward
  // computes its weight gradients). Rank 0 (stages below it: 1): nF0 2 forwards, nF0F1 once,
  // nB1W1F1 once, the main step m - 2n + r + 1 = 1 time (pair F0 B1, pair F1 B0), nB1F1B0
  // once, nB1B0 once, nWB0 once.
  EXPECT_EQ(passes(pipeline_order(PipelineSchedule::dualpipev, 0, 2, 4)),
            "F0:0 F0:1 F0:2 F1:0 B1:0 F1:1 [F0:3 B1:1] [F1:2 B0:0] B1:2 [F1:3 B0:1] B1:3 B0:2 "
            "B0:3");
  // Rank 1, the last: nF0F1 twice; the main step 4 - 4 + 1 + 1 = 2 times, its first F0 B1 not
  // paired ("we don't overlap these two chunks"); nB1B0 twice.
  EXPECT_EQ(passes(pipeline_order(PipelineSchedule::dualpipev, 1, 2, 4)),
            "F0:0 F1:0 F0:1 F1:1 F0:2 B1:0 [F1:2 B0:0] [F0:3 B1:1] [F1:3 B0:1] B1:2 B0:2 B1:3 "
            "B0:3");
}

TEST(PipelinePath, DualPipeVKeepsTheLastStageBusyFromItsFirstInput) {
  // 2 stages, chunks of f = 0.5 s forward and b = 1 s backward, free sends. The V: stage 0
  // holds virtual stages 0 and 3, stage 1 holds 1 and 2 and hands chunk 0's output to chunk 1
  // in memory. Stage 1 starts at 0.5 (stage 0's F0:0) and, walking its order above, never
  // waits again: each input it needs from stage 0 is there when it gets to it. So it ends at
  // 0.5 + 4 x (2 f + 2 b) = 12.5, and stage 0 runs B0:3 after stage 1's: 13.5 s, where 1F1B
  // over the same 2 stages takes (4 + 1) x 3 = 15 s.
  std::vector<Seconds> finish =
      pipeline_finish(PipelineSchedule::dualpipev, 4, 2, uniform(2, 2), Seconds(0));
  EXPECT_DOUBLE_EQ(finish[1].value(), 12.5);
  EXPECT_DOUBLE_EQ(finish[0].value(), 13.5);
  // With sends of s = 0.1 s (under f / 2, so the order of arrivals holds), stage 1 waits s
  // for its first input, 2 s before B1:0 (stage 0's F1:0 waits for stage 1's F1:0 to come up,
  // then B1:0 comes down) and 2 s before B1:3 the same way; B0:3 goes down once more. The
  // hand-over at the bottom of the V, inside stage 1, sends nothing: 13.5 + 6 s.
  EXPECT_DOUBLE_EQ(
      last(pipeline_finish(PipelineSchedule::dualpipev, 4, 2, uniform(2, 2), Seconds(0.1))), 14.1);
}

} // namespace
} // namespace trainsim
