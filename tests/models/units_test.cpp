#include "models/units.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>

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

std::string message_of(auto&& parse, std::string_view text) {
  try {
    (void)parse(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Units, RejectsPrefixesThatMakeNoSenseForTheQuantity) {
  // "400mbps" was read as 400 millibits per second = 0.05 B/s, which made a 252 Ms step.
  EXPECT_EQ(message_of(parse_bandwidth, "400mbps"),
            "'400mbps': bandwidth takes the prefixes k, K, M, G, T, P, Ki, Mi, Gi, Ti, not 'm' "
            "(did you mean "
            "'400Mbps'?)");
  EXPECT_EQ(message_of(parse_bytes, "3uB"),
            "'3uB': a size takes the prefixes k, K, M, G, T, P, Ki, Mi, Gi, Ti, not 'u'");
  EXPECT_EQ(
      message_of(parse_flop_rate, "989nFLOPS"),
      "'989nFLOPS': a compute rate takes the prefixes k, K, M, G, T, P, Ki, Mi, Gi, Ti, not 'n'");
  EXPECT_EQ(message_of(parse_flop, "1mFLOP"),
            "'1mFLOP': compute takes the prefixes k, K, M, G, T, P, Ki, Mi, Gi, Ti, not 'm' (did "
            "you mean '1MFLOP'?)");
  // A latency in kiloseconds or megaseconds is a typo of ms or us.
  EXPECT_EQ(message_of(parse_seconds, "5Ms"),
            "'5Ms': time takes the prefixes n, u, m or none, not 'M' (did you mean '5ms'?)");
  EXPECT_EQ(message_of(parse_seconds, "2ks"),
            "'2ks': time takes the prefixes n, u, m or none, not 'k'");
  EXPECT_EQ(message_of(parse_seconds, "1Gis"),
            "'1Gis': time takes the prefixes n, u, m or none, not 'Gi'");
}

TEST(Units, AcceptsEveryPrefixThatDoes) {
  EXPECT_DOUBLE_EQ(parse_seconds("3ns").value(), 3e-9);
  EXPECT_DOUBLE_EQ(parse_seconds("3s").value(), 3.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1Kbps").value(), 125.0); // 1000 bits / 8
  EXPECT_DOUBLE_EQ(parse_bandwidth("2TiB/s").value(), 2.0 * 1099511627776.0);
  EXPECT_DOUBLE_EQ(parse_bytes("1PB").value(), 1e15);
  EXPECT_DOUBLE_EQ(parse_flop_rate("2.25PFLOP/s").value(), 2.25e15);
  EXPECT_DOUBLE_EQ(parse_bytes("7B").value(), 7.0);
}

TEST(Units, DivisionGivesTime) {
  using namespace literals;
  // 1 GB over 50 GB/s = 0.02 s
  EXPECT_DOUBLE_EQ((1.0_GB / 50.0_GBps).value(), 0.02);
}

} // namespace
TEST(Units, TimesReadInUnitsAPersonUses) {
  EXPECT_EQ(format(Seconds(0.755)), "755 ms");
  EXPECT_EQ(format(Seconds(15.5)), "15.5 s");
  EXPECT_EQ(format(Seconds(59)), "59 s");
  EXPECT_EQ(format(Seconds(90)), "1.5 min");        // 90 / 60
  EXPECT_EQ(format(Seconds(3 * 3600)), "3 h");      // not "10.8 ks"
  EXPECT_EQ(format(Seconds(7.78e6)), "90 days");    // a 3-month run: 7.78e6 / 86,400 = 90.0
  EXPECT_EQ(format(Seconds(3.156e9)), "100 years"); // 3.156e9 / (365.25 x 86,400) = 100.0
}

TEST(Units, TwoTimesThatDifferAreFormattedApart) {
  // 109.24 ms against a budget of 109.18 ms: 3 and 4 digits read "109 ms" and "109.2 ms"
  // twice, 5 tell them apart.
  auto [needs, budget] = format_apart(Seconds(0.10924), Seconds(0.10918));
  EXPECT_EQ(needs, "109.24 ms");
  EXPECT_EQ(budget, "109.18 ms");
  auto [a, b] = format_apart(Seconds(1), Seconds(2));
  EXPECT_EQ(a, "1 s");
  EXPECT_EQ(b, "2 s");
}

TEST(Units, AComputeRateTakesEveryCommonSpelling) {
  for (const char* text : {"989TFLOPS", "989TFLOP/s", "989Tflops", "989TFLOPs"})
    EXPECT_DOUBLE_EQ(parse_flop_rate(text).value(), 989e12) << text;
}

} // namespace trainsim
