// ep_overlap: Megatron-Core's combined 1F1B as a stage's program runs it
// (models/step_program_pairs.cpp). Ops are written as tokens (step_program_fixtures.hpp); an
// EP stream's waits print as waitC:N (the first N started in the pair) and waitC (all).
#include <gtest/gtest.h>

#include <string>

#include "models/schedule.hpp"
#include "models/step_program.hpp"

#include "step_program_fixtures.hpp"

namespace trainsim {
namespace {

using namespace program_testing;

// One expert layer (2 experts, ep 2 in dp 2), 2 microbatches per GPU, no pipeline.
Scenario experts(bool overlap) {
  ExecutionSpec e = grid(2, 1, 1, 2);
  e.ep = 2, e.ep_overlap = overlap;
  Scenario s = scenario(ModelKind::transformer, 1, e);
  s.model.experts = 2;
  return s;
}

TEST(EpOverlap, OneMoreWarmupForwardThenPairs) {
  // 1F1B without a pipeline runs F0 B0 F1 B1. Combined 1F1B takes one more warm-up forward:
  // F0, then F1 with B0 (a steady-state pair), then B1 alone.
  std::vector<PipelineOp> order = pipeline_order(PipelineSchedule::one_f_one_b, 0, 1, 2, 1, 0, 1);
  ASSERT_EQ(order.size(), 4U);
  EXPECT_TRUE(order[0].forward && !order[0].steady);
  EXPECT_TRUE(order[1].forward && order[1].steady && order[1].microbatch == 1);
  EXPECT_TRUE(!order[2].forward && order[2].steady && order[2].microbatch == 0);
  EXPECT_TRUE(!order[3].forward && !order[3].steady);
  // One microbatch leaves no pair: its forward is warm-up, its backward the drain.
  order = pipeline_order(PipelineSchedule::one_f_one_b, 0, 1, 1, 1, 0, 1);
  EXPECT_FALSE(order[0].steady || order[1].steady);
}

TEST(EpOverlap, APairRunsEachAllToAllBesideTheOtherPassesKernels) {
  // A forward layer runs attention (C), dispatch, experts (C), combine; a backward one the
  // combine's gradient, the experts' (C), the dispatch's, attention's (C). F0 and B1 run so.
  // The pair F1 + B0 issues, as Megatron-Core does: B's combine (started first: it needs
  // nothing of the pair), F's attention, F's dispatch; B's experts after B's combine (the
  // stream's first: waitC:1); B's dispatch; F's experts after F's dispatch (second); F's
  // combine; B's attention after B's dispatch (third); then all, before F's next layer.
  std::string serial_forward = "C ep.A2A C ep.A2A", serial_backward = "ep.A2A C ep.A2A C";
  std::string pair =
      "start:ep.A2A C start:ep.A2A waitC:1 C start:ep.A2A waitC:2 C start:ep.A2A waitC:3 C waitC";
  std::string program = shape(stage_program(experts(true), 0, false));
  EXPECT_EQ(program.substr(0, serial_forward.size() + 1 + pair.size() + 1 + serial_backward.size()),
            serial_forward + " " + pair + " " + serial_backward);
  // Without it, the passes run one after another.
  EXPECT_EQ(shape(stage_program(experts(false), 0, false))
                .substr(0, 4 * serial_forward.size() + 3),
            serial_forward + " " + serial_backward + " " + serial_forward + " " + serial_backward);
}

TEST(EpOverlap, DelayedWeightGradientsRunBesideTheBackwardsDispatch) {
  // delay_wgrad_compute splits the backward expert block's kernels: the input gradients (C),
  // then the weights' (W) as an op of their own before the dispatch's all-to-all. Alone, a
  // backward runs them in that order, the same work as before. In the pair, B's dispatch
  // starts after its input gradients and its weight gradients run beside it (and beside F's
  // dispatch), before F's experts (Megatron-Core: mlp.backward, then mlp.backward_dw).
  // Priced per operator: the roofline's block has no weight gradients apart.
  Scenario s = experts(true);
  s.model.compute = ComputeModel::operators;
  s.execution.delay_wgrad_compute = true;
  std::string serial_forward = "C ep.A2A C ep.A2A", serial_backward = "ep.A2A C W ep.A2A C";
  std::string pair = "start:ep.A2A C start:ep.A2A waitC:1 C start:ep.A2A W waitC:2 C "
                     "start:ep.A2A waitC:3 C waitC";
  std::string program = shape(stage_program(s, 0, false));
  EXPECT_EQ(program.substr(0, serial_forward.size() + 1 + pair.size() + 1 + serial_backward.size()),
            serial_forward + " " + pair + " " + serial_backward);
  // The split moves work, it adds none: the backward's kernels sum to what they were.
  auto kernels = [](const Program& p) {
    double t = 0;
    for (const Op& op : p)
      if (op.kind == OpKind::compute || op.kind == OpKind::weight_gradients)
        t += op.duration.value();
    return t;
  };
  Scenario plain = s;
  plain.execution.delay_wgrad_compute = false;
  double with = kernels(stage_program(s, 0, false)),
         without = kernels(stage_program(plain, 0, false));
  EXPECT_NEAR(with, without, 1e-12 * without);
}

TEST(EpOverlap, EachOpKeepsItsOwnPass) {
  // In the pair, the forward's ops are microbatch 1's, the backward's microbatch 0's.
  Program p = stage_program(experts(true), 0, false);
  // The pair's first op is B0's combine gradient, its second F1's attention.
  EXPECT_EQ(p[4].microbatch, 0);
  EXPECT_FALSE(p[4].forward);
  EXPECT_EQ(p[5].microbatch, 1);
  EXPECT_TRUE(p[5].forward);
}

} // namespace
} // namespace trainsim
