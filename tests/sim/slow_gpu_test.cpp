// A slow GPU (a scenario's faults, models/faults.hpp) holds up the synchronous step: the
// collective after the kernels waits for it, so the step grows by its extra kernel time.
#include "tests/sim/step_fixtures.hpp"

#include "models/faults.hpp"

namespace trainsim {
namespace {

using namespace testing;

// Four single-GPU nodes on one leaf, dp 4, the paper's MLP blocks (the roofline: no speed
// spread), one microbatch each: every GPU runs its kernels, then the ring all-reduces the
// gradients, which no rank can finish before every rank has joined it.
Scenario four_way(std::vector<SlowGpus> slow = {}) {
  Scenario s = scenario(four_nodes(), {.dp = 4, .global_batch = 4}, mlp());
  s.faults.slow_gpus = std::move(slow);
  return s;
}

TEST(SlowGpu, ARingAllReduceWaitsForTheSlowRanksKernels) {
  // Rank 2 at half its kernel rate takes twice its kernel time C: the all-reduce starts C
  // later, and the step is C longer (the ring's own time is unchanged: the links are free).
  sim::SimResult healthy = simulate(four_way()).result;
  sim::SimResult slow =
      simulate(four_way({{.which = SlowGpus::Which::rank, .index = 2, .factor = 0.5}})).result;
  double c = healthy.ranks[2][sim::Category::compute].value();
  ASSERT_GT(c, 0.0);
  EXPECT_NEAR(slow.ranks[2][sim::Category::compute].value(), 2 * c, 1e-9 * c);
  EXPECT_NEAR(slow.step_time.value() - healthy.step_time.value(), c, 1e-6 * c);
  // The others wait for it in the all-reduce: their DP time grows by C.
  EXPECT_NEAR((slow.ranks[0][sim::Category::dp_comm] - healthy.ranks[0][sim::Category::dp_comm])
                  .value(),
              c, 1e-6 * c);
}

TEST(SlowGpu, TwoEntriesOnOneRankMultiply) {
  // 0.5 and 0.8: the rank's kernels take 1 / 0.4 = 2.5 x as long.
  sim::SimResult healthy = simulate(four_way()).result;
  sim::SimResult slow = simulate(four_way({{.which = SlowGpus::Which::rank, .index = 1, .factor = 0.5},
                                            {.which = SlowGpus::Which::node, .index = 1, .factor = 0.8}}))
                           .result;
  double c = healthy.ranks[1][sim::Category::compute].value();
  EXPECT_NEAR(slow.ranks[1][sim::Category::compute].value(), 2.5 * c, 1e-9 * c);
}

} // namespace
} // namespace trainsim
