// The cost a run warns about before it starts (tools/study/run_cost.hpp), and the progress
// lines long waits print (sim/progress.hpp).
#include <gtest/gtest.h>

#include "models/step_program.hpp"
#include "sim/progress.hpp"
#include "tests/support/captured_warnings.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tools/study/run_cost.hpp"

namespace trainsim {
namespace {

using testing::CapturedWarnings;

Scenario default_scenario() {
  return load_scenario(TRAINSIM_SOURCE_DIR "/scenarios/default.yaml").scenario;
}

TEST(RunCost, CountsTheActorsOpsFromTheScenarioShape) {
  Scenario s = default_scenario(); // 64 GPUs: dp 4 x tp 8 x pp 2
  RunCost cost = estimate_run_cost(s, false, 1, 1);
  EXPECT_DOUBLE_EQ(cost.actors, 64);
  EXPECT_DOUBLE_EQ(cost.actor_ops, 64 * program_size(s).folded);
  // Bundling 8 rails and folding 4 replicas leaves 64 / 8 / 4 = 2 actors to run the step.
  EXPECT_DOUBLE_EQ(estimate_run_cost(s, false, 8, 4).actors, 2);
  // One rail of each node on its own (a degraded link of its own) beside the leader:
  // 64 x 2 / 8 = 16 actors.
  EXPECT_DOUBLE_EQ(estimate_run_cost(s, false, 8, 1, std::nullopt, 1).actors, 16);
  EXPECT_DOUBLE_EQ(estimate_run_cost(s, true, 1, 1).actor_ops, 64 * program_size(s).fine);
  EXPECT_DOUBLE_EQ(cost.cpu_low.value(), cost.actor_ops * kCheapestOpSeconds);
  EXPECT_DOUBLE_EQ(cost.cpu_high.value(), cost.actor_ops * kDearestOpSeconds);
}

TEST(RunCost, FastModeCountsTheDelayedUpdatesRoundsOnTheBuiltGraphsNodes) {
  // tp 1 x dp 32 on nodes of 8: the delayed update's DP all-reduce is a ring over 32 members,
  // 8 per node, so fast mode runs min(2 x 31, 32) = 32 rounds on each of 8 channels (256
  // flows a member). An imported topology's spec may leave its node size 0 (inferred when the
  // graph is built); counted from the spec, that ring would have 1 channel (32 flows). Given
  // the built graph's 8, the estimate is the generated fabric's again.
  Scenario s =
      load_scenario(TRAINSIM_SOURCE_DIR "/scenarios/examples/delayed-update.yaml").scenario;
  s.execution.tp = 1, s.execution.dp = 32;
  RunCost generated = estimate_run_cost(s, false, 1, 1);
  s.system.topology.params = topo::ImportParams{"fabric.graphml", "auto", 0};
  EXPECT_LT(estimate_run_cost(s, false, 1, 1).actor_ops, generated.actor_ops);
  EXPECT_DOUBLE_EQ(estimate_run_cost(s, false, 1, 1, 8).actor_ops, generated.actor_ops);
}

TEST(RunCost, AMillionMicrobatchesWarnBeforeTheRunAndTheDefaultDoesNot) {
  Scenario s = default_scenario();
  {
    CapturedWarnings warnings("trainsim.run");
    warn_if_long(s, estimate_run_cost(s, false, 1, 1));
    EXPECT_EQ(warnings.text(), ""); // 0.75 s simulated in a tenth of a CPU second
  }
  // dp 4, micro_batch 1: 1,048,576 microbatches per pipeline, each at least a forward and a
  // backward op per stage on each of 64 actors: over 134M ops, over 4 min at 2 us each.
  s.execution.global_batch = 4 * 1048576;
  s.file = "big.yaml";
  CapturedWarnings warnings("trainsim.run");
  warn_if_long(s, estimate_run_cost(s, false, 1, 1));
  EXPECT_EQ(warnings.text().rfind("big.yaml: this step runs about ", 0), 0u) << warnings.text();
  EXPECT_NE(warnings.text().find("(1048576 microbatches per pipeline)"), std::string::npos);
  EXPECT_NE(warnings.text().find("fewer microbatches"), std::string::npos);
}

TEST(Progress, WaitsReadInSecondsMinutesAndHours) {
  EXPECT_EQ(sim::wait_text(-1), "0 s");
  EXPECT_EQ(sim::wait_text(2.9e-8), "0 s"); // never "29 ns" for a wait
  EXPECT_EQ(sim::wait_text(42.4), "42 s");
  EXPECT_EQ(sim::wait_text(210), "3.5 min");
  EXPECT_EQ(sim::wait_text(4320), "1.2 h");
}

TEST(Progress, ALineSaysWhatIsDoneOfWhatAndTheTimeLeft) {
  // No quiet period; in a log (ctest's stderr is no terminal) the first line is due at once,
  // then one every 30 s: the second add() comes too soon for another.
  ::testing::internal::CaptureStderr();
  sim::Progress variants("sweep", 4, "variants simulated", sim::Progress::Show::count,
                         std::chrono::seconds(0));
  variants.add();
  variants.add();
  variants.finish();
  sim::Progress ops("simulating", 200, "ops", sim::Progress::Show::share, std::chrono::seconds(0));
  ops.add(50);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "sweep: 1 of 4 variants simulated, 0 s elapsed, about 0 s left\n"
            "simulating:  25.0 % of ops, 0 s elapsed, about 0 s left\n");
}

} // namespace
} // namespace trainsim
