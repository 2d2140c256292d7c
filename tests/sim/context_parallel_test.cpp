// Context parallelism end to end: the simulator's step, its two fidelities and the closed-form
// bound on a fabric where no two flows share a link, and the CP collectives' time derived by
// hand from the ring's alpha-beta cost.
#include "tests/sim/step_fixtures.hpp"

#include "models/closed_form.hpp"
#include "tools/study/fabric_summary.hpp"

namespace trainsim {
namespace {

using namespace testing;

// Two transformer layers of d_model 4096 (32 heads, MHA), sequences of 4096 tokens, on four
// single-GPU nodes split four ways by CP: each GPU holds 1024 tokens of the one sequence.
Scenario four_way_context() {
  ModelSpec model{.layers = 2, .d_model = 4096, .d_ff = 16384, .heads = 32, .seq_len = 4096};
  return scenario(four_nodes(), {.cp = 4, .global_batch = 1}, model, h100());
}

TEST(ContextParallel, FastFineAndTheBoundAgreeWithoutContention) {
  // Every CP and gradient ring step sends one flow per link direction: the simulated step is
  // the bound's serial sum, in both fidelities.
  LoadedScenario loaded = build_unguarded(four_way_context());
  sim::SimOptions fast{sim::Fidelity::fast, false, false, {}},
      fine{sim::Fidelity::fine, false, false, {}};
  double fast_s = sim::simulate(loaded.scenario, loaded.topology, fast).step_time.value();
  double fine_s = sim::simulate(loaded.scenario, loaded.topology, fine).step_time.value();
  double bound_s =
      closed_form_bound(loaded.scenario, fabric_summary(loaded.topology, loaded.scenario.execution))
          .step_time.value();
  EXPECT_NEAR(fast_s, bound_s, 0.005 * bound_s);
  EXPECT_NEAR(fine_s, fast_s, 0.005 * fast_s);
}

TEST(ContextParallel, KeyValueGathersCostTheirRingSteps) {
  // Per layer: the K/V all-gather forward and backward and the gradients' reduce-scatter, 3
  // collectives of n = 2 (K, V) x 4096 d x 4096 tokens x 2 B = 67,108,864 B, each 3 ring steps
  // of 2 us (GPU, NIC, leaf, NIC, GPU: 4 hops of 0.5 us) + n / 4 / 50 GB/s = 335.54 us. Two
  // layers: 6 x 3 x 337.54 us = 6.0758 ms.
  Outcome run = simulate(four_way_context());
  double step = 2e-6 + 67108864.0 / 4 / 50e9;
  EXPECT_NEAR(category(run.summary, "cp_comm"), 6 * 3 * step, 0.005 * 6 * 3 * step);
  // The four CP ranks hold the same weights, so they all-reduce their gradients.
  EXPECT_GT(category(run.summary, "dp_comm"), 0.0);
}

} // namespace
} // namespace trainsim
