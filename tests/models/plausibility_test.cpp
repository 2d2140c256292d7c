#include "models/plausibility.hpp"

#include <gtest/gtest.h>

namespace trainsim {
namespace {

TEST(Plausibility, TodaysHardwareIsPlausible) {
  EXPECT_EQ(implausibility(Plausible::link_bandwidth, 900e9), "");  // NVLink 5 per direction
  EXPECT_EQ(implausibility(Plausible::link_bandwidth, 12.5e9), ""); // 100 Gb/s Ethernet
  EXPECT_EQ(implausibility(Plausible::link_latency, 0.0), "");      // an idealised hop
  EXPECT_EQ(implausibility(Plausible::gpu_peak, 2.25e15), "");      // B200 dense BF16
  EXPECT_EQ(implausibility(Plausible::hbm_bandwidth, 8e12), "");    // B200
  EXPECT_EQ(implausibility(Plausible::hbm_capacity, 288e9), "");    // B300
  EXPECT_EQ(implausibility(Plausible::kernel_latency, 4e-6), "");   // the project baseline
}

TEST(Plausibility, TyposAndWrongUnitsAreNamed) {
  // 400 Tb/s = 50 TB/s; 400 Mb/s = 50 MB/s.
  EXPECT_EQ(implausibility(Plausible::link_bandwidth, 50e12),
            "implausibly high for a link (> 10 TB/s)");
  EXPECT_EQ(implausibility(Plausible::link_bandwidth, 50e6),
            "implausibly low for a link (< 1 Gb/s)");
  EXPECT_EQ(implausibility(Plausible::link_latency, 10.0),
            "implausibly high for a link hop (> 1 ms)");
  EXPECT_EQ(implausibility(Plausible::gpu_peak, 989e9), "implausibly low for a GPU (< 1 TFLOP/s)");
  EXPECT_EQ(implausibility(Plausible::hbm_capacity, 80e12), "implausibly high for HBM (> 4 TB)");
  EXPECT_EQ(implausibility(Plausible::hbm_bandwidth, 3.35e9),
            "implausibly low for HBM (< 100 GB/s)");
  EXPECT_EQ(implausibility(Plausible::kernel_latency, 4.0),
            "implausibly high for a kernel launch (> 1 ms)");
}

} // namespace
} // namespace trainsim
