// Routing imbalance (execution.moe_imbalance, models/moe_load.hpp): each EP rank runs its
// routed kernels at its own share and sends each peer what that peer's experts take; the
// closed form keeps the balanced share and stays below the step.
#include "tests/sim/step_fixtures.hpp"

#include "models/closed_form.hpp"
#include "models/layout.hpp"
#include "models/moe_load.hpp"
#include "models/step_program.hpp"
#include "tools/study/fabric_summary.hpp"

namespace trainsim {
namespace {

using namespace testing;

// 16 experts, top 2, over ep 16 on two nodes (sixteen_way_experts): every dispatch and
// combine crosses the nodes.
Scenario sixteen_way(double imbalance, topo::FatTreeParams links = fabric()) {
  ExecutionSpec e;
  e.moe_imbalance = imbalance;
  e.moe_imbalance_seed = 7;
  return sixteen_way_experts(2, e, std::move(links));
}

sim::SimResult run(const Scenario& s, sim::Fidelity f) {
  LoadedScenario loaded = build_unguarded(s);
  return sim::simulate(loaded.scenario, loaded.topology, {f, false, false, {}});
}

double bound(const Scenario& s) {
  LoadedScenario loaded = build_unguarded(s);
  return closed_form_bound(loaded.scenario, fabric_summary(loaded.topology, loaded.scenario.execution))
      .step_time.value();
}

TEST(ExpertImbalance, EachRankRunsItsRoutedKernelsAtItsShare) {
  // On links too fast to matter, a rank's kernel time moves by (load - 1) x R, R the routed
  // kernels of its program (Op::routed, summed over the stage's one program), its load that
  // of its EP position: the shares 0.6 .. 1.4 in steps of 0.8 / 15, placed by the seed.
  Scenario balanced = sixteen_way(0, ideal_fabric()), uneven = sixteen_way(0.4, ideal_fabric());
  double routed = 0;
  for (const Op& op : stage_program(uneven, 0, false)) routed += op.routed.value();
  ASSERT_GT(routed, 0.0);
  std::vector<double> loads = expert_loads(uneven.model, uneven.execution);
  ASSERT_EQ(loads.size(), 16u);
  Layout layout(uneven.execution);
  for (sim::Fidelity f : {sim::Fidelity::fast, sim::Fidelity::fine}) {
    sim::SimResult a = run(balanced, f), b = run(uneven, f);
    for (int r = 0; r < 16; ++r) {
      double load = loads[static_cast<size_t>(layout.index_in(GroupKind::ep, r))];
      double grew = (b.ranks[static_cast<size_t>(r)][sim::Category::compute] -
                     a.ranks[static_cast<size_t>(r)][sim::Category::compute])
                        .value();
      EXPECT_NEAR(grew, (load - 1.0) * routed, 1e-9 * routed) << "rank " << r;
    }
  }
}

TEST(ExpertImbalance, TheBusiestRankSetsThePaceAndTheBoundStaysBelow) {
  // The step grows with the spread (the busiest rank's kernels and the bytes sent to it), the
  // two modes agree as they do balanced (within 3%), and the bound, priced at the balanced
  // share, stays below both.
  double last = 0;
  for (double s : {0.0, 0.25, 0.5}) {
    Scenario job = sixteen_way(s);
    double fast = run(job, sim::Fidelity::fast).step_time.value();
    double fine = run(job, sim::Fidelity::fine).step_time.value();
    EXPECT_GT(fast, last) << s;
    EXPECT_NEAR(fast, fine, 0.03 * fine) << s;
    EXPECT_GE(fast, bound(job) * (1 - 1e-9)) << s;
    EXPECT_GE(fine, bound(job) * (1 - 1e-9)) << s;
    last = fast;
  }
}

TEST(ExpertImbalance, PaddedToCapacityEveryRankRunsItsCapacity) {
  // Padded inputs make every expert's GEMMs and all-to-alls capacity rows whatever the
  // routing: the imbalance only drops more tokens, and the step is the balanced one's.
  Scenario a = sixteen_way(0), b = sixteen_way(0.5);
  a.execution.moe_capacity_factor = b.execution.moe_capacity_factor = 1.25;
  a.execution.moe_pad_to_capacity = b.execution.moe_pad_to_capacity = true;
  EXPECT_DOUBLE_EQ(run(a, sim::Fidelity::fast).step_time.value(),
                   run(b, sim::Fidelity::fast).step_time.value());
}

} // namespace
} // namespace trainsim
