#include "models/layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <vector>

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
  EXPECT_EQ(l.span(GroupKind::tp, 5), (GroupSpan{4, 1, 2})); // ranks 4, 5
  EXPECT_EQ(l.span(GroupKind::dp, 5), (GroupSpan{1, 2, 4})); // ranks 1, 3, 5, 7
  EXPECT_EQ(l.span(GroupKind::ep, 5), (GroupSpan{5, 2, 2})); // DP members 2, 3: ranks 5, 7
  EXPECT_EQ(l.span(GroupKind::edp, 5),
            (GroupSpan{1, 4, 2})); // EP index 0 of each block: ranks 1, 5
  EXPECT_EQ(l.index_in(GroupKind::dp, 5), 2);
  EXPECT_EQ(l.index_in(GroupKind::ep, 5), 0);
  EXPECT_EQ(l.index_in(GroupKind::edp, 5), 1);
  EXPECT_EQ(l.pipeline_peer(5, true), 13); // + tp x dp = 8
  EXPECT_EQ(l.pipeline_peer(13, true), 5); // the last stage's next wraps to the first
  EXPECT_EQ(l.pipeline_peer(5, false), 13);
}

TEST(Layout, FoldedExpertsGroupConsecutiveRanksOfAStage) {
  // dp 4, tp 2, pp 2, ep 4, etp 1: a stage's 8 ranks (tp innermost) form 2 EP groups of 4
  // consecutive ranks, TP ranks included: stage 1's ranks 12..15 hold rank 13. EDP takes the
  // same place in each EP group: ranks 9 and 13 (8 + 13 % 4 = 9, stride 4), 8 / 4 = 2 of them.
  ExecutionSpec e = grid(4, 2, 2, 4);
  e.etp = 1;
  Layout l(e);
  EXPECT_EQ(l.span(GroupKind::ep, 13), (GroupSpan{12, 1, 4}));
  EXPECT_EQ(l.span(GroupKind::edp, 13), (GroupSpan{9, 4, 2}));
  EXPECT_EQ(l.index_in(GroupKind::ep, 13), 1);
  EXPECT_EQ(l.index_in(GroupKind::edp, 13), 1);
  EXPECT_EQ(l.spans(GroupKind::ep, 1).size(), 2u);
  EXPECT_EQ(l.spans(GroupKind::edp, 1).size(), 4u);
  // TP and DP keep theirs: rank 13 is tp 1, dp 2 of stage 1.
  EXPECT_EQ(l.span(GroupKind::tp, 13), (GroupSpan{12, 1, 2}));
  EXPECT_EQ(l.span(GroupKind::dp, 13), (GroupSpan{9, 2, 4}));
}

TEST(Layout, ExpertsSplitOverPartOfTpTakeTheirOwnGrid) {
  // dp 2, tp 4, pp 2, ep 2, etp 2: a stage's 8 ranks are the experts' grid etp x ep x edp =
  // 2 x 2 x 2, etp innermost. Stage 1 holds ranks 8..15; rank 13 is s = 5 in it: etp index
  // 5 % 2 = 1, EP index 5 / 2 % 2 = 0, EDP index 5 / 4 = 1. ETP: ranks 12, 13 (half of TP
  // block 12..15); EP: every etp-th rank from 13 - 0 x 2, so 13 and 15; EDP: the ranks at
  // place 5 % 4 = 1 of each block of 4, so 9 and 13.
  ExecutionSpec e = grid(2, 4, 2, 2);
  e.etp = 2;
  Layout l(e);
  EXPECT_EQ(l.span(GroupKind::etp, 13), (GroupSpan{12, 1, 2}));
  EXPECT_EQ(l.span(GroupKind::ep, 13), (GroupSpan{13, 2, 2}));
  EXPECT_EQ(l.span(GroupKind::edp, 13), (GroupSpan{9, 4, 2}));
  EXPECT_EQ(l.index_in(GroupKind::etp, 13), 1);
  EXPECT_EQ(l.index_in(GroupKind::ep, 13), 0);
  EXPECT_EQ(l.index_in(GroupKind::edp, 13), 1);
  EXPECT_EQ(e.expert_replicas(), 2); // tp x dp / (ep x etp) = 8 / 4
  // Each kind's groups partition the stage, and every rank finds itself in its own.
  for (GroupKind kind : {GroupKind::etp, GroupKind::ep, GroupKind::edp}) {
    std::vector<int> seen(16, 0);
    for (const GroupSpan& g : l.spans(kind, 1))
      for (int i = 0; i < g.size; ++i) ++seen[static_cast<size_t>(g.member(i))];
    for (int r = 0; r < 16; ++r) {
      EXPECT_EQ(seen[static_cast<size_t>(r)], r >= 8 ? 1 : 0) << r;
      EXPECT_EQ(l.span(kind, r).member(l.index_in(kind, r)), r) << r;
    }
  }
  // etp 4 over tp 2: an ETP group of 4 consecutive ranks spans two TP groups (two DP
  // replicas'), and EP takes every 4th rank: rank 13 (s = 5) is in ETP 12..15 and EP {9, 13}.
  ExecutionSpec wide = grid(4, 2, 2, 2);
  wide.etp = 4;
  Layout w(wide);
  EXPECT_EQ(w.span(GroupKind::etp, 13), (GroupSpan{12, 1, 4}));
  EXPECT_EQ(w.span(GroupKind::ep, 13), (GroupSpan{9, 4, 2}));
  EXPECT_EQ(w.span(GroupKind::edp, 13), (GroupSpan{13, 8, 1}));
  EXPECT_EQ(wide.expert_replicas(), 1); // tp x dp / (ep x etp) = 8 / 8
  // etp 1 and etp = tp are the two ends: ETP is one rank, or the TP group itself.
  e.etp = 1;
  EXPECT_EQ(Layout(e).span(GroupKind::etp, 13), (GroupSpan{13, 1, 1}));
  e.etp = 4;
  EXPECT_EQ(Layout(e).span(GroupKind::etp, 13), Layout(e).span(GroupKind::tp, 13));
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

TEST(Layout, ContextParallelGroupsSitInsideTheWeightReplicas) {
  // dp 2, cp 2, tp 2, pp 2: rank = tp + 2 (w + 4 pp) with w = cp + 2 dp the index among the 4
  // ranks of a stage holding the same weights. Rank 5: tp 1, w 2 (cp 0, dp 1), pp 0.
  ExecutionSpec e = grid(2, 2, 2, 1);
  e.cp = 2;
  Layout l(e);
  EXPECT_EQ(l.ranks_per_stage(), 8);
  EXPECT_EQ(l.span(GroupKind::cp, 5), (GroupSpan{5, 2, 2})); // w 2, 3: ranks 5, 7
  EXPECT_EQ(l.span(GroupKind::cp, 3), (GroupSpan{1, 2, 2})); // w 0, 1: ranks 1, 3
  EXPECT_EQ(l.index_in(GroupKind::cp, 7), 1);
  // Gradients are reduced over every weight replica, the CP ranks included: ranks 1, 3, 5, 7.
  EXPECT_EQ(l.span(GroupKind::dp, 5), (GroupSpan{1, 2, 4}));
  EXPECT_EQ(l.spans(GroupKind::cp, 1).size(), 4u); // 8 ranks of stage 1 in pairs
  EXPECT_EQ(l.pipeline_peer(5, true), 13);         // + tp x dp x cp = 8
}

TEST(Layout, ExpertGroupsUnderContextParallelismTakeTheWeightReplicas) {
  // dp 2, cp 2, tp 2, pp 2, ep 2: EP blocks of 2 consecutive weight replicas (w = cp + 2 dp),
  // so one sequence's two CP ranks at one TP index: rank 5 (tp 1, w 2) with rank 7 (w 3).
  // EDP: the same place in each block, w 0 and 2: ranks 1 and 5 (4 / 2 = 2 of them).
  ExecutionSpec e = grid(2, 2, 2, 1);
  e.cp = 2, e.ep = 2;
  Layout l(e);
  EXPECT_EQ(l.span(GroupKind::ep, 5), (GroupSpan{5, 2, 2}));
  EXPECT_EQ(l.span(GroupKind::edp, 5), (GroupSpan{1, 4, 2}));
  EXPECT_EQ(e.expert_replicas(), 2);
  // Folded (etp 1): EP blocks of 2 consecutive ranks of a stage's tp x cp x dp = 8: ranks 4, 5;
  // EDP the 8 / 2 = 4 ranks at rank 5's place in each block: 1, 3, 5, 7.
  e.etp = 1;
  Layout folded(e);
  EXPECT_EQ(folded.span(GroupKind::ep, 5), (GroupSpan{4, 1, 2}));
  EXPECT_EQ(folded.span(GroupKind::edp, 5), (GroupSpan{1, 2, 4}));
  EXPECT_EQ(e.expert_replicas(), 4);
}

TEST(Layout, CoordsAndRanksAreInverse) {
  // TP innermost, then DP, then PP: rank = tp + 2 (dp + 3 pp) for tp 2, dp 3, pp 4.
  Layout l(grid(3, 2, 4, 1));
  EXPECT_EQ(l.rank({1, 2, 3}), 1 + 2 * (2 + 3 * 3));
  EXPECT_EQ(l.ranks_per_stage(), 6);
  for (int r = 0; r < 24; ++r) EXPECT_EQ(l.rank(l.coords(r)), r) << r;
}

TEST(Layout, EveryRankIsInExactlyOneGroupOfEachKind) {
  // The groups of a stage partition its ranks: every actor finds its peers, none twice.
  Layout l(grid(4, 2, 2, 2));
  for (GroupKind kind : {GroupKind::tp, GroupKind::dp, GroupKind::ep, GroupKind::edp})
    for (int stage = 0; stage < 2; ++stage) {
      std::vector<int> seen(16, 0);
      for (const GroupSpan& g : l.spans(kind, stage))
        for (int i = 0; i < g.size; ++i) ++seen[static_cast<size_t>(g.member(i))];
      for (int r = 0; r < 16; ++r)
        EXPECT_EQ(seen[static_cast<size_t>(r)], r / 8 == stage ? 1 : 0) << r;
    }
}

TEST(Layout, RankFindsItselfInItsGroup) {
  Layout l(grid(4, 2, 2, 2));
  for (GroupKind kind : {GroupKind::tp, GroupKind::dp, GroupKind::ep, GroupKind::edp})
    for (int r = 0; r < 16; ++r) EXPECT_EQ(l.span(kind, r).member(l.index_in(kind, r)), r) << r;
}

TEST(Layout, MembersWrapAroundTheRing) {
  // Ring neighbours are me + 1 and me - 1, taken modulo the size.
  GroupSpan g{1, 2, 4}; // ranks 1, 3, 5, 7
  EXPECT_EQ(g.member(4), 1);
  EXPECT_EQ(g.member(-1), 7);
  EXPECT_EQ(g.member(9), 3);
}

TEST(Layout, RailAlignedRingsWalkEveryOtherNodeBackwards) {
  // DP of tp 4 on nodes of 8: members 0-7 are ranks 0, 4, 8, ..., 28, two per node (local
  // GPUs 0 and 4). Blocks [0 1] [3 2] [4 5] [7 6]: 0 -> 1 -> 3 -> 2 -> 4 -> 5 -> 7 -> 6 -> 0.
  GroupSpan dp{0, 4, 8, 2};
  std::vector<int> next;
  for (int i = 0; i < 8; ++i) next.push_back(dp.ring_next(i));
  EXPECT_EQ(next, (std::vector<int>{1, 3, 4, 2, 5, 7, 0, 6}));
  // Every hop between nodes joins GPUs of the same local index: the ring stays on its rails.
  for (int i = 0; i < 8; ++i) {
    int from = dp.member(i), to = dp.member(dp.ring_next(i));
    if (from / 8 != to / 8) {
      EXPECT_EQ(from % 8, to % 8) << from << " -> " << to;
    }
  }
  // Without blocks (or with one node) the ring is the member order.
  EXPECT_EQ((GroupSpan{0, 4, 8}).ring_next(3), 4);
  EXPECT_EQ((GroupSpan{0, 1, 8, 8}).ring_next(7), 0);
}

TEST(Layout, EachChannelLeavesEveryNodeThroughAnotherGpu) {
  // DP of tp 2 on nodes of 8: 8 members, 4 per node (local GPUs 0, 2, 4, 6), 2 nodes: 4
  // channels. Channel 0 is the rail-aligned ring 0 -> 1 -> 2 -> 3 -> 7 -> 6 -> 5 -> 4 -> 0
  // (members), leaving node 0 from member 3 (local GPU 6). Channel c puts member
  // (k + c) mod 4 of each node where channel 0 has member k: channel 1 is 1 -> 2 -> 3 -> 0
  // -> 4 -> 7 -> 6 -> 5 -> 1, leaving node 0 from member 0 (local GPU 0) for member 4 (GPU 0
  // of node 1) and node 1 from member 5 (local GPU 2) for member 1 (GPU 2 of node 0).
  GroupSpan dp{0, 2, 8, 4};
  EXPECT_EQ(dp.ring_channels(), 4);
  std::vector<int> next;
  for (int i = 0; i < 8; ++i) next.push_back(dp.ring_next(i, 1));
  EXPECT_EQ(next, (std::vector<int>{4, 2, 3, 0, 7, 1, 5, 6}));
  std::vector<int> leaves; // the GPU each channel leaves node 0 from
  for (int c = 0; c < 4; ++c) {
    std::vector<bool> seen(8, false);
    int i = 0;
    for (int hop = 0; hop < 8; ++hop, i = dp.ring_next(i, c)) {
      EXPECT_FALSE(seen[static_cast<size_t>(i)]) << "channel " << c; // one ring over all 8
      seen[static_cast<size_t>(i)] = true;
      int from = dp.member(i), to = dp.member(dp.ring_next(i, c));
      if (from / 8 != to / 8) {
        EXPECT_EQ(from % 8, to % 8) << "channel " << c; // on one rail
        if (from / 8 == 0) leaves.push_back(from % 8);
      }
    }
  }
  // Every member's NIC carries one channel out of node 0.
  std::sort(leaves.begin(), leaves.end());
  EXPECT_EQ(leaves, (std::vector<int>{0, 2, 4, 6}));
  // One member per node, or one node: a single ring.
  EXPECT_EQ((GroupSpan{0, 8, 4, 1}).ring_channels(), 1);
  EXPECT_EQ((GroupSpan{0, 1, 8, 8}).ring_channels(), 1);
}

TEST(Layout, PipelinePeersStepOneStageEachWay) {
  // pp 4 of 2 ranks per stage: rank 3 (stage 1) sends forward to 5, backward to 1; the last
  // stage's next is the first and the first stage's previous the last.
  Layout l(grid(2, 1, 4, 1));
  EXPECT_EQ(l.pipeline_peer(3, true), 5);
  EXPECT_EQ(l.pipeline_peer(3, false), 1);
  EXPECT_EQ(l.pipeline_peer(7, true), 1);
  EXPECT_EQ(l.pipeline_peer(1, false), 7);
}

TEST(Layout, NodeBlocksSplitAGroupByNode) {
  // 8 GPUs per node. A DP group of stride 2 (tp 2) and 16 members: 4 members per node.
  GroupSpan dp{0, 2, 16};
  EXPECT_EQ(node_block(dp, 8), 4);
  EXPECT_EQ(block_of(dp, 4, 6),
            (GroupSpan{8, 2, 4})); // member 6 is rank 12, on node 1 with 8, 10, 14
  EXPECT_EQ(across_blocks(dp, 4, 6),
            (GroupSpan{4, 8, 4})); // offset 2 in every node: ranks 4, 12, 20, 28
  // One member per node (stride 8) or more: no blocks; a group that starts mid-node, or whose
  // size is no multiple of the block, neither.
  EXPECT_EQ(node_block(GroupSpan{0, 8, 4}, 8), 1);
  EXPECT_EQ(node_block(GroupSpan{2, 1, 8}, 8), 1); // ranks 2-9 straddle two nodes
  EXPECT_EQ(node_block(GroupSpan{0, 2, 6}, 8), 1); // 6 members, blocks of 4
  EXPECT_EQ(node_block(GroupSpan{0, 3, 8}, 8), 1); // stride 3 does not divide the node
}

TEST(Layout, TwoDimensionalTpNestsItsSecondAxisInsideTheBlock) {
  // tp 2, tp_2d 2, dp 2: TP blocks of 4 ranks, the second axis innermost. Rank 5 is block 1's
  // second rank: tp_2d index 1, TP index 0. Its tp_2d group is {4, 5}; its TP group the ranks
  // of its block at the same tp_2d index, {5, 7}; its DP group strides by blocks, {1, 5}.
  Layout l({.dp = 2, .tp = 2, .tp_2d = 2});
  EXPECT_EQ(l.span(GroupKind::tp2, 5), (GroupSpan{4, 1, 2}));
  EXPECT_EQ(l.index_in(GroupKind::tp2, 5), 1);
  EXPECT_EQ(l.span(GroupKind::tp, 5), (GroupSpan{5, 2, 2}));
  EXPECT_EQ(l.index_in(GroupKind::tp, 5), 0);
  EXPECT_EQ(l.span(GroupKind::dp, 5), (GroupSpan{1, 4, 2}));
  EXPECT_EQ(l.index_in(GroupKind::dp, 5), 1);
  // Each stage lists every group once: two blocks, each with two groups of either axis.
  EXPECT_EQ(l.spans(GroupKind::tp, 0).size(), 4u);
  EXPECT_EQ(l.spans(GroupKind::tp2, 0).size(), 4u);
  EXPECT_EQ(l.tp_block(), 4);
}

TEST(Layout, TheFrontiersNestedOrderSpansTheInnerGroupsToo) {
  // tp_2d 2 innermost, then tp_1d 4, ep 2, pp 3, the replicas outermost, on 96 GPUs: a tp_1d
  // group with its tp_2d groups spans 2 x 4 = 8 consecutive ranks, an EP group 16, a
  // pipeline 48, the replicas all 96.
  NestedSpans s = nested_spans(2, 4, 2, 3, 96);
  EXPECT_EQ(s.tp_2d, 2);
  EXPECT_EQ(s.tp_1d, 8);
  EXPECT_EQ(s.ep, 16);
  EXPECT_EQ(s.pp, 48);
  EXPECT_EQ(s.dp, 96);
}

TEST(Layout, KindsAcrossNodesAreThoseWhoseGroupsSpanTwoNodes) {
  // dp 4 x tp 4 x pp 2 with 2 experts over ep 2, on nodes of 8: a TP group is ranks 0-3 (one
  // node); EP pairs TP blocks 0 and 1 (ranks 0 and 4: one node); DP strides by 4 over 16 ranks
  // (ranks 0, 4, 8, 12: two nodes); EDP (the same expert across EP groups: ranks 0 and 8)
  // spans two. On nodes of 4, EP spans two as well; on nodes of 16 (a whole stage) none does;
  // unknown nodes (0): every kind.
  ExecutionSpec e;
  e.dp = 4, e.tp = 4, e.pp = 2, e.ep = 2;
  GroupKinds dp_edp = kinds_bit(GroupKind::dp) | kinds_bit(GroupKind::edp);
  EXPECT_EQ(kinds_across_nodes(e, 8), dp_edp);
  EXPECT_EQ(kinds_across_nodes(e, 4), dp_edp | kinds_bit(GroupKind::ep));
  EXPECT_EQ(kinds_across_nodes(e, 16), 0);
  EXPECT_EQ(kinds_across_nodes(e, 0), kAllGroupKinds);
}

} // namespace
} // namespace trainsim
