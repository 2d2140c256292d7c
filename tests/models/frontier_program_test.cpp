// The frontier's plan formulas (models/frontier_plan.cpp) against the step program of the
// same plan (models/step_program.cpp): the bytes each GPU sends per microbatch over each
// group, and its gradient reduction. The closed form writes a step down a second time, as
// the paper does; this test is what keeps the two descriptions of the step the same one.
#include <gtest/gtest.h>

#include <map>

#include "models/collective_cost.hpp"
#include "models/frontier.hpp"
#include "models/layout.hpp"
#include "models/step_program.hpp"
#include "tests/models/frontier_fixtures.hpp"
#include "tests/models/step_program_fixtures.hpp"

namespace trainsim {
namespace {

using testing::small_shape;

/// A point of `plan` for 4 MLP blocks (d_model 1000, d_ff 4000) and 512 tokens per
/// microbatch: whole numbers, so that the scenario holds exactly the shape the plan priced.
FrontierPoint point_of(const ParallelPlan& plan) {
  FrontierPoint p;
  p.shape = small_shape(4, plan.dp * plan.microbatches * 512);
  p.shape.compute = Flop(1e24);
  p.feasible = true;
  p.plan = plan;
  p.times.tokens_per_microbatch = 512;
  return p;
}

/// What one member of a ring collective of `p` members sends, per byte of the op's tensor.
double wire_fraction(CollectiveOp op, double p) {
  return (op == CollectiveOp::all_reduce ? 2.0 : 1.0) * (p - 1) / p;
}

/// Stage 0's bytes sent per GPU, by group, over the program's collectives (each at its
/// ring's wire fraction) and pipeline transfers (sends and receives: the activation out and
/// the gradient back), for microbatch 0's passes or, with `passes` false, outside them.
std::map<std::string, double> sent(const Scenario& s, bool passes) {
  Layout layout(s.execution);
  std::map<std::string, double> out;
  for (const Op& op : stage_program(s, 0, false)) {
    if ((op.microbatch == 0) != passes) continue;
    bool moves = op.kind == OpKind::collective || op.kind == OpKind::start_collective;
    if (moves) {
      double p = layout.span(op.group, 0).size;
      out[program_testing::group_name(op.group)] +=
          op.count * op.bytes.value() * wire_fraction(op.collective, p);
    }
    if (op.kind == OpKind::send || op.kind == OpKind::recv) out["pp"] += op.bytes.value();
  }
  return out;
}

TEST(FrontierProgram, ThePlansTrafficIsTheProgramsOfItsScenario) {
  // dp 4 x tp 2 x tp_2d 2 x pp 2, 8 microbatches of 512 tokens, 4 layers of d 1000, f 4000,
  // bf16: 32 GPUs, stage 0 holds 2 layers. The closed form's traffic per GPU per microbatch
  // (the paper's V, Megatron pairing), each GPU's 1/tp = 1/4 of the 512 tokens' activations:
  // over tp_1d 4 x 512 x 1000 x 2 B / 4 x (2 - 1) x 2 layers = 2.048 MB, over tp_2d the same
  // with d_ff 4000: 8.192 MB, over the pipeline one activation out and one gradient back,
  // 2 x 512 x 1000 x 2 B / 4 = 512 kB.
  ParallelPlan plan{4, 2, 2, 2, 1, 8, 1};
  FrontierHardware hw = resolve_hardware(FrontierOptions{});
  FrontierPoint point = point_of(plan);
  Scenario s = frontier_scenario(point, hw);
  std::map<std::string, double> program = sent(s, true);
  // The program's backward all-gathers the sequence-parallel input once more, for the weight
  // gradient (Megatron-LM's regather), which the paper's V does not count: 5 d-wide transfers
  // per layer on tp_1d where the closed form has 4. The d_ff-wide all-reduces and the pipeline
  // transfers (each TP rank sends its sequence slice) are the closed form's.
  EXPECT_DOUBLE_EQ(program["tp"], 2.048e6 * 5 / 4);
  EXPECT_DOUBLE_EQ(program["tp2"], 8.192e6);
  EXPECT_DOUBLE_EQ(program["pp"], 512e3);
  // Every byte of it stays in the node (one node holds a replica's 8 GPUs), so the plan's
  // NVLink time is the closed form's bytes at NVLink's bandwidth.
  PlanTimes t = evaluate_plan(point.shape, hw, plan);
  EXPECT_DOUBLE_EQ(t.network.value(), 0.0);
  EXPECT_DOUBLE_EQ((hw.fabric.nvlink.bandwidth * t.nvlink).value(),
                   program["tp"] * 4 / 5 + program["tp2"] + program["pp"]);
  // The gradients: 2 layers x 8e6 parameters / 4 ranks = 4e6 per GPU, 8 MB in bf16, reduced
  // over dp 4 (the delayed update's reduce-scatter, then the parameters' all-gather): twice
  // 3/4 x 8 MB = 12 MB, the closed form's 2 (R-1)/R x the bytes, over the network.
  std::map<std::string, double> step = sent(s, false);
  EXPECT_DOUBLE_EQ(step["dp"], 12e6);
  Seconds latency = hw.fabric.network.alpha * half_steps("tree", 4) * 2.0;
  EXPECT_NEAR((hw.fabric.network.bandwidth * (t.dp - latency)).value(), step["dp"], 1e-3);
}

TEST(FrontierProgram, TheMoePlansDispatchIsTheProgramsAllToAll) {
  // The MoE curve's layer: 8 experts of the MLP block, top 1. dp 4 x tp 2 x ep 2, one stage
  // of 4 layers, 4 microbatches of 512 tokens: 8 GPUs in one node. Per GPU per microbatch the
  // closed form's dispatch and combine, forward and backward, of its 1/tp = 1/2 of the
  // routed tokens, each leaving with probability (ep - 1)/ep = 1/2:
  // 4 x 512 x 1 x 2 B / 2 x 1000 x 1/2 x 4 layers = 4.096 MB.
  ParallelPlan plan{4, 2, 1, 1, 2, 4, 1};
  FrontierHardware hw = resolve_hardware(FrontierOptions{});
  FrontierPoint point = point_of(plan);
  point.shape.layer.experts = 8;
  point.shape.layer.top_k = 1;
  std::map<std::string, double> program = sent(frontier_scenario(point, hw), true);
  // The program's all-to-alls send each TP rank's sequence shard, as Megatron-Core's
  // dispatcher does under sequence parallelism (which the frontier's TP plans run with):
  // the closed form's bytes.
  EXPECT_DOUBLE_EQ(program["ep"], 4.096e6);
  // Then the TP group gathers the routed tokens the ranks received and reduce-scatters the
  // experts' output, forward and backward: 4 collectives of 512 x 1000 x 2 B = 1.024 MB, each
  // sending half, a layer: 4 x 0.512 MB x 4 layers = 8.192 MB, the closed form's V:
  // 4 x 512 x 2 B / 2 x 1000 x (tp - 1) x 4 layers.
  EXPECT_DOUBLE_EQ(program["tp"], 8.192e6);
}

} // namespace
} // namespace trainsim
