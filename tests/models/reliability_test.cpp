// Failure rates by component (models/reliability.hpp): the Llama 3 defaults add back up to the
// table they come from, a given MTBF replaces a default, switches and cables replace the
// lumped network, and Llama 3's own run keeps more than 90% of its time.
#include "models/reliability.hpp"

#include <gtest/gtest.h>

#include "models/goodput.hpp"

namespace trainsim {
namespace {

// Llama 3's job: 16,384 GPUs and NICs in 2,048 hosts of 8.
Exposure llama3() {
  Exposure e;
  for (Component c : {Component::gpu, Component::hbm, Component::nic, Component::network,
                      Component::software})
    e.units[static_cast<size_t>(c)] = 16384;
  e.units[static_cast<size_t>(Component::host)] = 2048;
  return e;
}

TEST(Reliability, TheDefaultsGiveBackLlama3sInterruptions) {
  // 196 + 72 + 46 + 7 + 35 + 63 = 419 interruptions over 54 x 24 = 1,296 h.
  EXPECT_NEAR(failures_per_hour(ReliabilitySpec{}, llama3()), 419.0 / 1296, 1e-12);
  // HBM alone: 72 over 1,296 h, an MTBF of 16,384 x 1,296 / 72 = 294,912 h per GPU.
  EXPECT_NEAR(llama3_mtbf(Component::hbm)->value() / 3600, 294912, 1e-6);
  EXPECT_NEAR(failures_per_hour(ReliabilitySpec{}, llama3(), Component::hbm), 72.0 / 1296, 1e-12);
  EXPECT_FALSE(llama3_mtbf(Component::network_switch).has_value());
}

TEST(Reliability, AGivenMtbfReplacesTheDefault) {
  ReliabilitySpec r;
  r.mtbf[static_cast<size_t>(Component::gpu)] = Seconds(16384 * 3600.0); // one a hour
  // 1 + (419 - 196) / 1,296 per hour.
  EXPECT_NEAR(failures_per_hour(r, llama3()), 1 + 223.0 / 1296, 1e-12);
}

TEST(Reliability, SwitchesAndCablesReplaceTheLumpedNetwork) {
  ReliabilitySpec r;
  r.mtbf[static_cast<size_t>(Component::network_switch)] = Seconds(1e5 * 3600);
  Exposure e = llama3();
  e.units[static_cast<size_t>(Component::network_switch)] = 1000;
  e.units[static_cast<size_t>(Component::cable)] = 50000; // no cable MTBF: not counted
  // The table's 35 network failures go; 1,000 switches at 1e5 h each come: 0.01 per hour.
  EXPECT_FALSE(mtbf_of(r, Component::network).has_value());
  EXPECT_NEAR(failures_per_hour(r, e), (419.0 - 35) / 1296 + 0.01, 1e-12);
}

TEST(Reliability, Llama3sRunKeepsMoreThanNinetyPercent) {
  // Meta reports more than 90% effective training time over the 54 days. With its failure
  // rate, a checkpoint of the 405B model's weights and Adam state (405e9 x (2 + 12) B = 5.67
  // TB) written at 1 TB/s (5.67 s) and 10 minutes to restart, Young-Daly's first order keeps
  // 91.5%: M = 1,296 / 419 h = 11,135 s, tau = sqrt(2 x 5.67 x 11,135) = 355.3 s, goodput =
  // 355.3 / 361.0 x (1 - (600 + 180.5) / 11,135) = 0.9153. A restart of 20 minutes: 0.862.
  GoodputInputs in{.gpus = 16384,
                   .failures_per_gpu_hour = failures_per_hour(ReliabilitySpec{}, llama3()) / 16384,
                   .checkpoint = Seconds(5.67),
                   .restart = Seconds(600)};
  double g = first_order_goodput(in, young_daly_interval(in));
  EXPECT_GT(g, 0.90);
  EXPECT_NEAR(g, 0.9153, 0.001);
  in.restart = Seconds(1200);
  EXPECT_LT(first_order_goodput(in, young_daly_interval(in)), 0.90);
}

} // namespace
} // namespace trainsim
