// DualPipeV in the simulator beyond the hand-derived cases (tests/sim/step_test.cpp): on uneven
// and odd pipelines, with and without experts overlapped, the step completes in both modes,
// the two agree, and the bound stays below.
#include "tests/sim/step_fixtures.hpp"

#include "models/closed_form.hpp"
#include "tools/study/fabric_summary.hpp"

namespace trainsim {
namespace {

using namespace testing;

double bound_of(const Scenario& s) {
  LoadedScenario loaded = build_unguarded(s);
  return closed_form_bound(loaded.scenario,
                           fabric_summary(loaded.topology, loaded.scenario.execution))
      .step_time.value();
}

struct Case {
  int pp;
  long microbatches;
  int layers;
  bool experts;
};

// Single-GPU nodes of one leaf, pp x 1 of them: every pipeline transfer crosses the network.
Scenario v_shaped(const Case& c) {
  ModelSpec model{.layers = c.layers, .d_model = 2048, .d_ff = 2048, .heads = 16, .seq_len = 2048};
  ExecutionSpec e{.pp = c.pp, .global_batch = c.microbatches};
  e.schedule = PipelineSchedule::dualpipev;
  if (c.experts) { // ep 2 over dp 2, overlapped in the pairs
    model.experts = 4, model.top_k = 2;
    e.dp = 2, e.ep = 2, e.global_batch = 2 * c.microbatches, e.ep_overlap = true;
  }
  return scenario(fat_tree(c.pp * e.dp, 1), e, model, h100());
}

TEST(DualPipeVSteps, CompleteAboveTheBoundAndAgreeAcrossModes) {
  // Odd pp (dualpipev.py asserts no parity), the fewest microbatches (2 pp) and more, one or
  // two layers a chunk, dense and with experts.
  for (Case c : {Case{2, 4, 4, false}, Case{3, 6, 6, false}, Case{3, 7, 6, true},
                 Case{4, 8, 8, true}, Case{4, 11, 16, false}}) {
    SCOPED_TRACE("pp " + std::to_string(c.pp) + ", " + std::to_string(c.microbatches) +
                 " microbatches, " + std::to_string(c.layers) + " layers" +
                 (c.experts ? ", experts" : ""));
    Scenario s = v_shaped(c);
    double fast = simulate(s, sim::Fidelity::fast).result.step_time.value();
    double fine = simulate(s, sim::Fidelity::fine).result.step_time.value();
    EXPECT_GE(fast, bound_of(s) * (1 - 1e-9));
    EXPECT_GE(fine, bound_of(s) * (1 - 1e-9));
    EXPECT_NEAR(fast, fine, 0.03 * fine);
  }
}

} // namespace
} // namespace trainsim
