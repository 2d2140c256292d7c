// Goodput over a run with failures (models/goodput.hpp): Young-Daly's interval and first-order
// goodput derived by hand, and the Monte-Carlo agreeing with them where their assumptions hold.
#include "models/goodput.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace trainsim {
namespace {

TEST(Goodput, Llama3sRateGivesAFailureAboutEveryThreeHours) {
  // 419 interruptions in 54 days on 16,384 GPUs: 54 x 24 / 419 = 3.093 h between them.
  GoodputInputs in{.gpus = 16384};
  EXPECT_NEAR(in.mtbf().value() / 3600, 54.0 * 24 / 419, 1e-12);
}

TEST(Goodput, YoungDalyIsTheSquareRootOfTwiceCheckpointTimesMtbf) {
  // M = 3600 / (1000 x 1e-4) = 36,000 s; C = 50 s: sqrt(2 x 50 x 36,000) = 1,897.4 s.
  GoodputInputs in{.gpus = 1000, .failures_per_gpu_hour = 1e-4, .checkpoint = Seconds(50)};
  EXPECT_NEAR(young_daly_interval(in).value(), std::sqrt(3.6e6), 1e-9);
  // Goodput at tau = 1,800 s, R = 300 s: 1800 / 1850 x (1 - (300 + 925) / 36,000) = 0.93986.
  in.restart = Seconds(300);
  EXPECT_NEAR(first_order_goodput(in, Seconds(1800)), 1800.0 / 1850 * (1 - 1225.0 / 36000), 1e-12);
  // The optimum beats intervals on either side of it.
  Seconds best = young_daly_interval(in);
  EXPECT_GT(first_order_goodput(in, best), first_order_goodput(in, best * 0.5));
  EXPECT_GT(first_order_goodput(in, best), first_order_goodput(in, best * 2.0));
}

TEST(Goodput, MonteCarloAgreesWithYoungDalyWhereItsAssumptionsHold) {
  // M = 100 h against C = 1 min and R = 5 min: tau = sqrt(2 x 60 x 360,000) = 6,573 s, all
  // small against M. Over 100,000 h (about 1,000 failures) the simulated goodput is within 2%
  // of the first-order one, at the optimum and at half and twice it.
  GoodputInputs in{.gpus = 100, .failures_per_gpu_hour = 1e-4, .checkpoint = Seconds(60),
                   .restart = Seconds(300)};
  ASSERT_NEAR(in.mtbf().value(), 360000, 1e-6);
  for (double k : {0.5, 1.0, 2.0}) {
    Seconds tau = young_daly_interval(in) * k;
    GoodputRun run = monte_carlo_goodput(in, tau, Seconds(3.6e8), 7);
    EXPECT_GT(run.failures, 900) << k;
    EXPECT_NEAR(run.goodput(), first_order_goodput(in, tau), 0.02 * first_order_goodput(in, tau))
        << k;
  }
}

TEST(Goodput, MonteCarloIsDeterministicAndCountsWhatHappened) {
  GoodputInputs in{.gpus = 16384, .checkpoint = Seconds(120), .restart = Seconds(600)};
  Seconds tau = young_daly_interval(in), wall = Seconds(54 * 24 * 3600.0);
  GoodputRun a = monte_carlo_goodput(in, tau, wall, 1), b = monte_carlo_goodput(in, tau, wall, 1);
  EXPECT_EQ(a.failures, b.failures);
  EXPECT_EQ(a.useful.value(), b.useful.value());
  // 54 days at one failure per 3.09 h: about 419 (Poisson: within 4 sigma, +-82).
  EXPECT_NEAR(a.failures, 419, 82);
  // Useful time never exceeds the wall time less the checkpoints and restarts it paid.
  EXPECT_LE(a.useful.value() + a.checkpoints * 120.0 + a.failures * 600.0, wall.value() + 1e-6);
  // No failures: periods of 1000 s of work and a 120 s checkpoint; 10,200 s hold 9 of them
  // (10,080 s) and 120 s of work after the last, kept at the end: 9,120 s useful.
  GoodputInputs none = in;
  none.failures_per_gpu_hour = 1e-30;
  GoodputRun perfect = monte_carlo_goodput(none, Seconds(1000), Seconds(10200), 3);
  EXPECT_EQ(perfect.failures, 0);
  EXPECT_EQ(perfect.checkpoints, 9);
  EXPECT_NEAR(perfect.useful.value(), 9120, 1e-9);
}

} // namespace
} // namespace trainsim
