// keep_largest (tools/study/largest.hpp): the few largest entries, ties in key order.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "tools/study/largest.hpp"

namespace trainsim {
namespace {

TEST(KeepLargest, LargestFirstTiesByKey) {
  // Values 1, 2, 2, 0.5 under keys 3, 1, 2, 0: the three largest are 2 (key 1), 2 (key 2),
  // then 1 (key 3); the two 2s come in key order whichever came first.
  std::vector<std::pair<int, double>> v{{3, 1.0}, {2, 2.0}, {1, 2.0}, {0, 0.5}};
  keep_largest(v, 3);
  EXPECT_EQ(v, (std::vector<std::pair<int, double>>{{1, 2.0}, {2, 2.0}, {3, 1.0}}));
  keep_largest(v, 10); // asking for more than there are keeps them all
  EXPECT_EQ(v.size(), 3u);
}

} // namespace
} // namespace trainsim
