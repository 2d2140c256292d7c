// ep_overlap (Megatron-Core's combined 1F1B) in the simulated step: the paired passes'
// all-to-alls hide behind each other's kernels, the two modes agree, the bound stays below,
// and what it refuses is refused in one line.
#include "tests/sim/step_fixtures.hpp"

#include "models/closed_form.hpp"
#include "tools/study/fabric_summary.hpp"

namespace trainsim {
namespace {

using namespace testing;

// 8 experts (top 2) on the 8 GPUs of one node (ep 8 in dp 8), one layer of d_model 4096 and
// expert d_ff 4096 on sequences of 4096 tokens, 4 microbatches per GPU, on the H100 preset.
// A layer's attention and experts take milliseconds; each all-to-all moves 4096 x 2 x 4096 x
// 2 B = 64 MiB over NVLink, 7/8 of it to other GPUs, about 0.15 ms: far less.
Scenario one_node(bool overlap) {
  ModelSpec model{.layers = 1,
                  .d_model = 4096,
                  .d_ff = 4096,
                  .heads = 32,
                  .seq_len = 4096,
                  .experts = 8,
                  .top_k = 2};
  ExecutionSpec e{.dp = 8, .ep = 8, .global_batch = 32};
  e.ep_overlap = overlap;
  return scenario(fat_tree(1), e, model, h100());
}

double bound_of(const Scenario& s) {
  LoadedScenario loaded = build_unguarded(s);
  return closed_form_bound(loaded.scenario,
                           fabric_summary(loaded.topology, loaded.scenario.execution))
      .step_time.value();
}

TEST(EpOverlap, ThePairsAllToAllsHideBehindTheirKernels) {
  // 4 microbatches: F0 runs alone, then F1+B0, F2+B1, F3+B2 together, then B3 alone. Every
  // pass has 2 all-to-alls per layer; the 3 pairs' 12 of the 16 hide behind the paired pass's
  // kernels (each shorter than the kernel beside it), the 4 of F0 and B3 stay exposed. So
  // ep_comm falls to 4 / 16 of the serial schedule's and the step by the other 12 / 16.
  Outcome serial = simulate(one_node(false)), overlapped = simulate(one_node(true));
  double ep = category(serial.summary, "ep_comm");
  ASSERT_GT(ep, 0.0);
  EXPECT_NEAR(category(overlapped.summary, "ep_comm"), ep * 4 / 16, 0.02 * ep);
  EXPECT_NEAR(overlapped.result.step_time.value(),
              serial.result.step_time.value() - ep * 12 / 16, 0.02 * ep);
  EXPECT_NEAR(category(overlapped.summary, "compute"), category(serial.summary, "compute"),
              1e-9 * category(serial.summary, "compute"));
}

TEST(EpOverlap, FastAndFineAgreeAcrossNodesAndTheBoundStaysBelow) {
  // 16-way experts over two nodes: every all-to-all crosses them.
  ExecutionSpec e;
  e.ep_overlap = true;
  Scenario s = sixteen_way_experts(2, e);
  s.execution.global_batch = 64; // 4 microbatches per GPU: 3 pairs
  Outcome fast = simulate(s, sim::Fidelity::fast), fine = simulate(s, sim::Fidelity::fine);
  EXPECT_NEAR(fast.result.step_time.value(), fine.result.step_time.value(),
              0.01 * fine.result.step_time.value());
  double bound = bound_of(s);
  EXPECT_GE(fast.result.step_time.value(), bound * (1 - 1e-9));
  EXPECT_GE(fine.result.step_time.value(), bound * (1 - 1e-9));
}

TEST(EpOverlap, DelayedWeightGradientsHideMoreOfTheBackwardsDispatch) {
  // Top 8 of 16 experts across two nodes: each all-to-all outlasts the kernels beside it, so
  // in a pair B's dispatch outlasts F's experts and shows as ep_comm. delay_wgrad_compute
  // starts it before B's experts' weight gradients, which then run beside it too: the same
  // kernels (compute unchanged), less of the exchange exposed, a shorter step, still above the
  // bound; the two modes agree. (It gains only where F's dispatch, ahead of B's on the EP
  // stream, ends before B's input gradients do: with top 2 it ends later and nothing moves.)
  ExecutionSpec e;
  e.ep_overlap = true;
  Scenario plain = sixteen_way_experts(8, e);
  plain.execution.global_batch = 64;
  Scenario delayed = plain;
  delayed.execution.delay_wgrad_compute = true;
  Outcome before = simulate(plain), after = simulate(delayed);
  EXPECT_NEAR(category(after.summary, "compute"), category(before.summary, "compute"),
              1e-9 * category(before.summary, "compute"));
  EXPECT_LT(category(after.summary, "ep_comm"), category(before.summary, "ep_comm"));
  EXPECT_LT(after.result.step_time.value(), before.result.step_time.value());
  EXPECT_GE(after.result.step_time.value(), bound_of(delayed) * (1 - 1e-9));
  EXPECT_NEAR(simulate(delayed, sim::Fidelity::fine).result.step_time.value(),
              after.result.step_time.value(), 0.01 * after.result.step_time.value());
}

TEST(EpOverlap, RunsOnAnInterleavedPipeline) {
  // pp 2 x 2 virtual stages, ep 2 in dp 2 on 4 single-GPU nodes, 4 microbatches: the extra
  // warm-up forward keeps each pair's passes independent, so the step completes (no stage
  // waits for what it has not sent), above the bound, in either mode. The modes may differ a
  // little: the pipeline's and the expert exchanges' flows share the leaf's links.
  ModelSpec model{.layers = 4, .d_model = 2048, .d_ff = 2048, .heads = 16, .seq_len = 2048,
                  .experts = 4, .top_k = 2};
  ExecutionSpec e{.dp = 2, .pp = 2, .ep = 2, .global_batch = 8};
  e.schedule = PipelineSchedule::interleaved, e.interleave = 2;
  Scenario overlapped = scenario(four_nodes(), e, model, h100());
  overlapped.execution.ep_overlap = true;
  double step = simulate(overlapped).result.step_time.value();
  EXPECT_GE(step, bound_of(overlapped) * (1 - 1e-9));
  EXPECT_NEAR(simulate(overlapped, sim::Fidelity::fine).result.step_time.value(), step,
              0.03 * step);
  EXPECT_GT(step, 0.0);
}

TEST(EpOverlap, HidesDualPipeVsPairedAllToAlls) {
  // The interleaved job above under DualPipeV: 4 layers in 2 x 2 chunks of one, 4
  // microbatches per pipeline (2 x pp, the fewest it runs). Its main step pairs a forward of
  // one chunk with a backward of the other; with ep_overlap their all-to-alls run beside the
  // other's kernels, so less of the exchange shows than with the same order run pass by pass,
  // over the same kernels. The step stays above the bound, and the modes agree as above.
  ModelSpec model{.layers = 4,
                  .d_model = 2048,
                  .d_ff = 2048,
                  .heads = 16,
                  .seq_len = 2048,
                  .experts = 4,
                  .top_k = 2};
  ExecutionSpec e{.dp = 2, .pp = 2, .ep = 2, .global_batch = 8};
  e.schedule = PipelineSchedule::dualpipev;
  Scenario serial = scenario(four_nodes(), e, model, h100()), overlapped = serial;
  overlapped.execution.ep_overlap = true;
  Outcome apart = simulate(serial), paired = simulate(overlapped);
  EXPECT_LT(category(paired.summary, "ep_comm"), category(apart.summary, "ep_comm"));
  EXPECT_NEAR(category(paired.summary, "compute"), category(apart.summary, "compute"),
              1e-9 * category(apart.summary, "compute"));
  double step = paired.result.step_time.value();
  EXPECT_GE(step, bound_of(overlapped) * (1 - 1e-9));
  EXPECT_GE(apart.result.step_time.value(), bound_of(serial) * (1 - 1e-9));
  EXPECT_NEAR(simulate(overlapped, sim::Fidelity::fine).result.step_time.value(), step,
              0.03 * step);
}

TEST(EpOverlap, RunsOnAnUnevenWrittenLayout) {
  // As above with 5 layers written out as DeepSeek's recipes write theirs, the last virtual
  // stage lighter: "Ett|t|t|tL" gives virtual stages 2, 1, 1, 1 layers, so stage 0 (virtual
  // stages 0 and 2) holds 3 and stage 1 holds 2, its chunks' passes of unequal length. The
  // step completes above the bound in either mode, and the modes agree as above.
  ModelSpec model{.layers = 5, .d_model = 2048, .d_ff = 2048, .heads = 16, .seq_len = 2048,
                  .experts = 4, .top_k = 2};
  ExecutionSpec e{.dp = 2, .pp = 2, .ep = 2, .global_batch = 8};
  e.schedule = PipelineSchedule::interleaved, e.interleave = 2;
  e.pipeline_layout = parse_pipeline_layout("Ett|t|t|tL").layout;
  e.ep_overlap = true;
  Scenario uneven = scenario(four_nodes(), e, model, h100());
  double step = simulate(uneven).result.step_time.value();
  EXPECT_GE(step, bound_of(uneven) * (1 - 1e-9));
  EXPECT_NEAR(simulate(uneven, sim::Fidelity::fine).result.step_time.value(), step, 0.03 * step);
}

TEST(EpOverlap, RefusesWhatItCannotOverlap) {
  const std::string head = "test.yaml: execution.ep_overlap = 'true': ";
  Scenario s = one_node(true);
  EXPECT_EQ(refusal(s), "accepted");
  s.model.experts = 1, s.model.top_k = 1, s.execution.ep = 1;
  EXPECT_EQ(refusal(s), head + "applies to a mixture of experts only (model.experts > 1; this "
                               "model has 1)");
  s = one_node(true);
  s.execution.ep = 1;
  EXPECT_EQ(refusal(s), head + "overlaps expert-parallel all-to-alls, and ep is 1 (there are none)");
  s = one_node(true);
  s.execution.moe_dispatcher = MoeDispatcher::allgather;
  EXPECT_EQ(refusal(s), head + "needs moe_dispatcher: alltoall (Megatron-Core's all-gather "
                               "dispatcher has no dispatch and combine to overlap)");
  s = one_node(true);
  s.execution.schedule = PipelineSchedule::gpipe;
  EXPECT_EQ(refusal(s), head + "needs schedule 1f1b, interleaved or dualpipev: it pairs each "
                               "steady-state forward with a backward");
  s = one_node(true);
  s.model.layers = 2, s.execution.pp = 2, s.execution.dp = 4, s.execution.ep = 4;
  s.execution.global_batch = 8;
  EXPECT_EQ(refusal(s), head + "with pp > 1 needs schedule: interleaved with interleave > 1 "
                               "(Megatron-Core's combined 1F1B extends the interleaved schedule)");
  s = one_node(false);
  s.execution.delay_wgrad_compute = true;
  EXPECT_EQ(refusal(s), "test.yaml: execution.delay_wgrad_compute = 'true': is built only under "
                        "ep_overlap, where it lets a backward's dispatch start before its "
                        "experts' weight gradients");
  s = one_node(true);
  s.execution.recompute = Recompute::full;
  EXPECT_EQ(refusal(s), head + "is not built with recompute: full");
  s = one_node(true);
  s.model.layers = 2, s.execution.offload_layers = 1;
  EXPECT_EQ(refusal(s), head + "is not built with offload_layers");
}

} // namespace
} // namespace trainsim
