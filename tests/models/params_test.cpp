#include "models/params.hpp"

#include <gtest/gtest.h>

namespace trainsim {
namespace {

Params make(std::map<std::string, std::string> values) {
  return Params("s.yaml", "system", std::move(values));
}

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Params, ReadsTypedValuesWithDefaults) {
  auto p = make({{"nodes", "8"}, {"bw", "400Gbps"}});
  EXPECT_EQ(p.get<int>("nodes"), 8);
  EXPECT_DOUBLE_EQ(p.get<BytesPerSecond>("bw").value(), 50e9);
  EXPECT_EQ(p.get_or<int>("absent", 3), 3);
  EXPECT_NO_THROW(p.reject_unknown());
}

TEST(Params, UnknownKeySuggestsTheClosestKnownOne) {
  auto p = make({{"nodez", "8"}});
  (void)p.get_or<int>("nodes", 1);
  EXPECT_EQ(error_of([&] { p.reject_unknown(); }),
            "s.yaml: system.nodez = '8': unknown key (did you mean 'nodes'?)");
}

TEST(Params, MessagesNameFileKeyAndValue) {
  auto p = make({{"nodes", "-1"}, {"bw", "400"}});
  EXPECT_EQ(error_of([&] { (void)p.get_positive<int>("nodes"); }),
            "s.yaml: system.nodes = '-1': must be greater than zero");
  EXPECT_EQ(error_of([&] { (void)p.get<BytesPerSecond>("bw"); }),
            "s.yaml: system.bw = '400': '400' needs a unit (Bps or bps with a prefix, e.g. "
            "450GBps, 400Gbps)");
  EXPECT_EQ(error_of([&] { (void)p.get<int>("missing"); }),
            "s.yaml: system.missing = '': is missing");
}

TEST(Params, WholeNumbersBeyondTheTypeAreOutOfRangeNotNegative) {
  // 1e10 > 2^31 - 1 = 2147483647: once cast to int it wrapped and read as "must be greater
  // than zero"; it must say what the limit is.
  auto p = make({{"nodes", "1e10"}, {"big", "99999999999"}, {"low", "-1e10"}, {"huge", "1e17"}});
  EXPECT_EQ(error_of([&] { (void)p.get_positive<int>("nodes"); }),
            "s.yaml: system.nodes = '1e10': is out of range (at most 2147483647)");
  EXPECT_EQ(error_of([&] { (void)p.get<int>("big"); }),
            "s.yaml: system.big = '99999999999': is out of range (at most 2147483647)");
  EXPECT_EQ(error_of([&] { (void)p.get<int>("low"); }),
            "s.yaml: system.low = '-1e10': is out of range (at least -2147483648)");
  // A long holds 1e17, but a double does not hold every whole number beyond 2^53 =
  // 9007199254740992.
  EXPECT_EQ(error_of([&] { (void)p.get<long>("huge"); }),
            "s.yaml: system.huge = '1e17': is out of range (at most 9007199254740992)");
  EXPECT_EQ(make({{"n", "2147483647"}}).get<int>("n"), 2147483647);
  EXPECT_EQ(make({{"n", "4.2e9"}}).get<long>("n"), 4200000000L);
}

TEST(Params, SuggestionsIgnoreCase) {
  // "TP" is two substitutions from dp, tp, pp and ep alike; only case separates it from tp.
  EXPECT_EQ(closest_match("TP", {"dp", "ep", "pp", "tp"}), "tp");
  auto p = make({{"TP", "8"}});
  for (const char* key : {"dp", "ep", "pp", "tp"}) (void)p.get_or<int>(key, 1);
  EXPECT_EQ(error_of([&] { p.reject_unknown(); }),
            "s.yaml: system.TP = '8': unknown key (did you mean 'tp'?)");
}

TEST(Params, ALineWithoutAKeyNeverShowsAnEmptyPath) {
  EXPECT_STREQ(InputError("s.yaml", "", "", "must be a mapping").what(),
               "s.yaml: must be a mapping");
  EXPECT_STREQ(InputError("s.yaml", "", "3", "must be a mapping").what(),
               "s.yaml: '3': must be a mapping");
}

} // namespace
TEST(Params, ResolvedHoldsWhatWasWrittenAndTheDefaultsUsed) {
  // "nodes" was written; "latency" and "bandwidth" were asked for with defaults, whose text
  // (SI base units) parses back to the same values; "unread" was never asked for.
  Params p("f.yaml", "system.topology", {{"nodes", "8"}, {"unread", "1"}});
  (void)p.get<int>("nodes");
  (void)p.get_or("latency", Seconds(5e-7));
  (void)p.get_or("bandwidth", BytesPerSecond(6.4e10));
  auto r = p.resolved();
  EXPECT_EQ(r.size(), 3u);
  EXPECT_EQ(r.at("nodes"), "8");
  EXPECT_EQ(r.at("latency"), "5e-07s");
  EXPECT_EQ(parse_seconds(r.at("latency")).value(), 5e-7);
  EXPECT_EQ(parse_bandwidth(r.at("bandwidth")).value(), 6.4e10);
  EXPECT_FALSE(r.contains("unread"));
}

} // namespace trainsim
