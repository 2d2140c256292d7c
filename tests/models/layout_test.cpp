#include "models/layout.hpp"

#include <gtest/gtest.h>

namespace trainsim {
namespace {

ExecutionSpec grid(int dp, int tp, int pp, int ep) {
  ExecutionSpec e;
  e.dp = dp, e.tp = tp, e.pp = pp, e.ep = ep;
  return e;
}

TEST(Layout, GroupsOfOneRank) {
  // dp 4, tp 2, pp 2, ep 2: rank = tp + 2 (dp + 4 pp). Rank 5 is tp 1, dp 2, pp 0.
  Layout l(grid(4, 2, 2, 2));
  EXPECT_EQ(l.span(GroupKind::tp, 5), (GroupSpan{4, 1, 2}));  // ranks 4, 5
  EXPECT_EQ(l.span(GroupKind::dp, 5), (GroupSpan{1, 2, 4}));  // ranks 1, 3, 5, 7
  EXPECT_EQ(l.span(GroupKind::ep, 5), (GroupSpan{5, 2, 2}));  // DP members 2, 3: ranks 5, 7
  EXPECT_EQ(l.span(GroupKind::edp, 5), (GroupSpan{1, 4, 2})); // EP index 0 of each block: ranks 1, 5
  EXPECT_EQ(l.index_in(GroupKind::dp, 5), 2);
  EXPECT_EQ(l.index_in(GroupKind::ep, 5), 0);
  EXPECT_EQ(l.index_in(GroupKind::edp, 5), 1);
  EXPECT_EQ(l.pipeline_peer(5, true), 13); // + tp x dp = 8
  EXPECT_EQ(l.pipeline_peer(13, true), 5); // the last stage's next wraps to the first
  EXPECT_EQ(l.pipeline_peer(5, false), 13);
}

TEST(Layout, EveryGroupOfAStageOnce) {
  // Stage 1 holds ranks 8..15: 4 TP groups of 2, 2 DP groups of 4, 4 EP blocks of 2 and 4
  // EDP groups of 2 (2 per DP group).
  Layout l(grid(4, 2, 2, 2));
  EXPECT_EQ(l.spans(GroupKind::tp, 1).size(), 4u);
  EXPECT_EQ(l.spans(GroupKind::dp, 1).size(), 2u);
  EXPECT_EQ(l.spans(GroupKind::ep, 1).size(), 4u);
  EXPECT_EQ(l.spans(GroupKind::edp, 1).size(), 4u);
  EXPECT_EQ(l.spans(GroupKind::dp, 1).front(), (GroupSpan{8, 2, 4}));
}

} // namespace
} // namespace trainsim
