#include "models/params.hpp"

#include <gtest/gtest.h>

namespace trainsim {
namespace {

Params make(std::map<std::string, std::string> values) { return Params("s.yaml", "system", std::move(values)); }

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
            "s.yaml: system.bw = '400': '400' needs a unit (Bps or bps with a prefix, e.g. 450GBps, 400Gbps)");
  EXPECT_EQ(error_of([&] { (void)p.get<int>("missing"); }), "s.yaml: system.missing = '': is missing");
}

} // namespace
} // namespace trainsim
