#include "models/units.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace trainsim {
namespace {

TEST(Units, ParsesDecimalAndBinaryPrefixes) {
  EXPECT_DOUBLE_EQ(parse_seconds("2us").value(), 2e-6);
  EXPECT_DOUBLE_EQ(parse_seconds("1.5 ms").value(), 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_bytes("80GB").value(), 80e9);
  EXPECT_DOUBLE_EQ(parse_bytes("1GiB").value(), 1073741824.0); // 2^30
  EXPECT_DOUBLE_EQ(parse_flop_rate("989TFLOPS").value(), 989e12);
  EXPECT_DOUBLE_EQ(parse_flop("1e25FLOP").value(), 1e25);
}

TEST(Units, BitsAreAnEighthOfBytes) {
  // 400 Gb/s = 400e9 / 8 B/s = 50e9 B/s
  EXPECT_DOUBLE_EQ(parse_bandwidth("400Gbps").value(), 50e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("450GBps").value(), 450e9);
}

TEST(Units, RejectsMissingOrWrongUnits) {
  EXPECT_THROW((void)parse_seconds("2"), std::invalid_argument);
  EXPECT_THROW((void)parse_seconds("2GB"), std::invalid_argument);
  EXPECT_THROW((void)parse_bandwidth("fast"), std::invalid_argument);
  EXPECT_THROW((void)parse_bytes("12XB"), std::invalid_argument);
}

TEST(Units, DivisionGivesTime) {
  using namespace literals;
  // 1 GB over 50 GB/s = 0.02 s
  EXPECT_DOUBLE_EQ((1.0_GB / 50.0_GBps).value(), 0.02);
}

} // namespace
} // namespace trainsim
