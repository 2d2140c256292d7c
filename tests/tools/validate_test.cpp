// The quick validation subset (trainsim validate --quick) and its acceptance criteria:
// exact cases within 2% of the closed form, no scenario below the bound, collectives within
// 1% of alpha-beta. The full suite is `trainsim validate` (docs/validation.md).
#include <gtest/gtest.h>

#include <cmath>

#include "tools/validate_command.hpp"

namespace trainsim {
namespace {

TEST(ValidateTest, ExactCasesMatchTheBoundWithin2Percent) {
  for (const ExactCase& c : exact_cases(true)) {
    EXPECT_GE(c.simulated_s, c.bound_s * (1 - 1e-6)) << c.name;
    EXPECT_LE(std::abs(c.error()), 0.02) << c.name << ": " << c.note;
  }
}

TEST(ValidateTest, NoScenarioIsBelowTheBound) {
  ValidateOptions o;
  o.quick = true;
  o.scenarios_dir = TRAINSIM_SOURCE_DIR "/scenarios";
  int generated = 0, rejected = 0;
  std::vector<BoundCheck> checks = bound_checks(o, generated, rejected);
  EXPECT_GE(checks.size(), 20u); // 20 random ones, plus the small files of scenarios/
  for (const BoundCheck& c : checks) EXPECT_FALSE(c.violates()) << c.name << " (" << c.features << ") is below the bound";
}

TEST(ValidateTest, CollectivesMatchAlphaBetaWithin1Percent) {
  for (const CollectiveCheck& c : collective_checks(true)) {
    if (c.exact_formula) {
      EXPECT_LE(std::abs(c.error()), 0.01) << c.algorithm << " " << c.op << " " << c.ranks;
    }
  }
}

// NCCL-tests' bus bandwidth: for a ring all-reduce over p ranks on links of B bytes/s,
// t = 2(p-1)(alpha + n/(pB)) so algbw = n/t and busbw = algbw x 2(p-1)/p -> B as n grows.
// With 8 ranks over 50 GB/s NICs and alpha = 2 us, n = 256 MiB = 268435456 B:
// t = 14 x (2 us + 33554432 / 50e9 s) = 14 x 673.09 us = 9.4232 ms; busbw = 49.85 GB/s.
TEST(ValidateTest, RingBusBandwidthApproachesTheLinkBandwidth) {
  for (const CollectiveCheck& c : collective_checks(true)) {
    if (c.algorithm != "ring" || c.op != "all_reduce" || c.ranks != 8) continue;
    EXPECT_NEAR(c.simulated_s, 9.4232e-3, 0.01 * 9.4232e-3);
    EXPECT_NEAR(c.busbw, 49.85e9, 0.01 * 49.85e9);
  }
}

TEST(ValidateTest, RandomScenariosAreDeterministic) {
  EXPECT_EQ(random_scenario_text(7, 3), random_scenario_text(7, 3));
  EXPECT_NE(random_scenario_text(7, 3), random_scenario_text(7, 4));
}

} // namespace
} // namespace trainsim
