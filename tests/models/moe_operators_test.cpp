// A mixture-of-experts block's own kernels (models/moe_operators.cpp) and its experts' grouped
// GEMMs: shapes and bytes of a tiny expert layer derived by hand.
#include <gtest/gtest.h>

#include "models/collective_cost.hpp"
#include "models/compute_model.hpp"
#include "models/operators.hpp"
#include "tests/models/operator_fixtures.hpp"

namespace trainsim {
namespace {

using testing::find;
using testing::find_or_null;

// The tiny layer (d_model 8, 4 tokens, BF16: 2 bytes a word) as 4 experts of d_ff 32, top 2.
ModelSpec tiny_moe() {
  ModelSpec m = testing::tiny_layer();
  m.experts = 4;
  m.top_k = 2;
  return m;
}

ExecutionSpec over_ep(int ep) {
  ExecutionSpec e;
  e.ep = ep;
  return e;
}

TEST(MoeOperators, TheRouterScoresEveryTokenInBf16) {
  // Logits: 4 tokens x 4 experts from d_model 8: 2 x 4 x 4 x 8 = 256 FLOP, a BF16 GEMM even
  // under FP8 (wide). Its backward: the input gradient (4 x 8 from 4) and the weight's
  // (8 x 4 summed over the 4 tokens), 256 FLOP each.
  BlockOperators b = layer_operators(tiny_moe(), over_ep(2)).mlp;
  const Operator& router = find(b.forward, "router");
  EXPECT_EQ(router.flop.value(), 256);
  EXPECT_TRUE(router.wide);
  EXPECT_EQ(find(b.backward, "router_dgrad").flop.value(), 256);
  EXPECT_EQ(find(b.backward, "router_wgrad").gemm.k, 4);
  EXPECT_TRUE(find(b.backward, "router_wgrad").wide);
  // Top-k reads the 16 BF16 logits (2 B) and writes FP32 probabilities (4 B) and a one-byte
  // routing map: 16 x 7 = 112 B. Backward reads the probabilities' gradient and the saved
  // probabilities and map, and writes the logits' gradient: 16 x (4 + 4 + 1 + 2) = 176 B.
  EXPECT_EQ(find(b.forward, "router_topk").bytes.value(), 112);
  EXPECT_EQ(find(b.backward, "router_topk_grad").bytes.value(), 176);
}

TEST(MoeOperators, Fp32LogitsWidenWhatTheRouterWritesNotItsRate) {
  // moe_router_dtype: fp32: the GEMM writes 16 FP32 logits instead of BF16 ones, 32 B more
  // than its (4 x 8 + 8 x 4 + 4 x 4) x 2 = 160 B; the top-k reads them: 16 x (4 + 4 + 1).
  ModelSpec m = tiny_moe();
  m.router_fp32 = true;
  BlockOperators b = layer_operators(m, over_ep(2)).mlp;
  EXPECT_EQ(find(b.forward, "router").bytes.value(), 160 + 32);
  EXPECT_EQ(find(b.forward, "router").flop.value(), 256);
  EXPECT_EQ(find(b.forward, "router_topk").bytes.value(), 144);
}

TEST(MoeOperators, PermutationCopiesEachTokenOncePerExpert) {
  // Permute reads the 4 tokens (4 x 8 x 2 = 64 B) and writes 4 x 2 = 8 copies with their
  // FP32 probability: 8 x (16 + 4) = 160 B; 224 in all. Its gradient reads the 8 copies'
  // gradients (128 B) and writes the 4 tokens' (64 B): 192.
  BlockOperators b = layer_operators(tiny_moe(), over_ep(2)).mlp;
  EXPECT_EQ(find(b.forward, "permute").bytes.value(), 224);
  EXPECT_EQ(find(b.backward, "permute_grad").bytes.value(), 192);
  // Unpermute reads the 8 outputs and their probabilities (160 B) and writes the 4 weighted
  // sums (64 B). Backward reads the 64 B gradient, writes the 8 copies' (128 B) and their
  // probabilities' (32 B), reading the outputs and probabilities again (160 B): 384 B.
  EXPECT_EQ(find(b.forward, "unpermute").bytes.value(), 224);
  EXPECT_EQ(find(b.backward, "unpermute_grad").bytes.value(), 384);
}

TEST(MoeOperators, ReceivedTokensAreSortedByLocalExpertBothWays) {
  // Over ep 2 a GPU holds 2 experts: the 8 routed rows it receives (4 tokens x top 2, balanced)
  // are sorted into one run per expert and back, each a read and a write: 2 x 8 x 8 x 2 B.
  BlockOperators b = layer_operators(tiny_moe(), over_ep(2)).mlp;
  EXPECT_EQ(find(b.forward, "expert_sort").bytes.value(), 256);
  EXPECT_EQ(find(b.forward, "expert_unsort").bytes.value(), 256);
  EXPECT_EQ(find(b.backward, "expert_sort_grad").bytes.value(), 256);
  EXPECT_EQ(find(b.backward, "expert_unsort_grad").bytes.value(), 256);
  // No sort where nothing is exchanged (ep 1: the permutation already groups by expert) or
  // where each GPU holds one expert (ep 4).
  for (int ep : {1, 4})
    EXPECT_EQ(find_or_null(layer_operators(tiny_moe(), over_ep(ep)).mlp.forward, "expert_sort"),
              nullptr)
        << "ep " << ep;
}

TEST(MoeOperators, UnderSequenceParallelismEachTpRankRoutesItsShard) {
  // tp 2 with sequence parallelism: a rank routes its 2 of the 4 tokens: logits 2 x 4 from 8
  // (128 FLOP), and permutes 2 tokens into 4 copies: 2 x 16 + 4 x 20 = 112 B.
  ExecutionSpec e = over_ep(2);
  e.tp = 2, e.sequence_parallel = true;
  BlockOperators b = layer_operators(tiny_moe(), e).mlp;
  EXPECT_EQ(find(b.forward, "router").flop.value(), 128);
  EXPECT_EQ(find(b.forward, "permute").bytes.value(), 112);
}

TEST(MoeOperators, ADenseLayerHasNoRouter) {
  BlockOperators b = layer_operators(testing::tiny_layer(), ExecutionSpec{}).mlp;
  for (const char* name : {"router", "router_topk", "permute", "unpermute"})
    EXPECT_EQ(find_or_null(b.forward, name), nullptr) << name;
}

TEST(MoeOperators, GroupedGemmRunsTheLocalExpertsInOneKernel) {
  // Over ep 2, 2 local experts share the 8 routed rows: 4 each. fc1 (d_ff 32 from d_model 8):
  // one kernel of 2 products of 4 x 32 from 8, 2 x 4 x 32 x 8 x 2 = 4096 FLOP. One GEMM per
  // expert instead (moe_grouped_gemm: false): 2 kernels of one product each, the same FLOP.
  ModelSpec m = tiny_moe();
  const Operator& grouped = find(layer_operators(m, over_ep(2)).mlp.forward, "fc1");
  EXPECT_EQ(grouped.gemm.m, 4);
  EXPECT_EQ(grouped.gemm.batch, 2);
  EXPECT_EQ(grouped.count, 1);
  EXPECT_EQ(grouped.flop.value(), 4096);
  m.moe_grouped_gemm = false;
  const Operator& sequential = find(layer_operators(m, over_ep(2)).mlp.forward, "fc1");
  EXPECT_EQ(sequential.gemm.batch, 1);
  EXPECT_EQ(sequential.count, 2);
  EXPECT_EQ(sequential.flop.value(), 4096);
  // The weight gradients accumulate once per parameter either way: 2 experts x (8 x 32
  // weights + 32 biases) = 576 parameters, each read fresh (2 B) and its BF16 sum read and
  // written (2 x 2 B) without gradient-accumulation fusion: 576 x 6 B.
  ExecutionSpec unfused = over_ep(2);
  unfused.grad_accumulation_fusion = false;
  for (bool group : {true, false}) {
    m.moe_grouped_gemm = group;
    EXPECT_EQ(find(layer_operators(m, unfused).mlp.backward, "fc1_grad_accum").bytes.value(),
              576 * 6.0);
  }
}

TEST(MoeOperators, ACapacityFactorDropsOrPadsTheExpertsRows) {
  // Dropless over ep 2 each of 2 local experts runs 8 / 2 = 4 rows. Capacity factor 0.5: each
  // keeps 2 and the permutation writes 4 copies, not 8: 64 + 4 x 20 = 144 B. Padded at 1.5:
  // 6 rows each, and 12 copies written, 64 + 12 x 20 = 304 B.
  ExecutionSpec e = over_ep(2);
  e.moe_capacity_factor = 0.5;
  BlockOperators b = layer_operators(tiny_moe(), e).mlp;
  EXPECT_EQ(find(b.forward, "fc1").gemm.m, 2);
  EXPECT_EQ(find(b.forward, "permute").bytes.value(), 144);
  e.moe_capacity_factor = 1.5, e.moe_pad_to_capacity = true;
  b = layer_operators(tiny_moe(), e).mlp;
  EXPECT_EQ(find(b.forward, "fc1").gemm.m, 6);
  EXPECT_EQ(find(b.forward, "permute").bytes.value(), 304);
  // Unpadded, a factor of 1 or more drops nothing from balanced routing.
  e.moe_pad_to_capacity = false;
  EXPECT_EQ(find(layer_operators(tiny_moe(), e).mlp.forward, "fc1").gemm.m, 4);
}

TEST(MoeOperators, TheAllGatherDispatcherPermutesFromTheGatheredTokens) {
  // Over ep 2 a rank picks its 8 routed copies from the group's 2 x 4 = 8 gathered tokens:
  // 8 x 16 + 8 x 20 = 288 B, already one run per expert (no sort); the unpermute writes
  // the 8 tokens' places: 8 x 20 + 8 x 16 = 288 B.
  ExecutionSpec e = over_ep(2);
  e.moe_dispatcher = MoeDispatcher::allgather;
  BlockOperators b = layer_operators(tiny_moe(), e).mlp;
  EXPECT_EQ(find(b.forward, "permute").bytes.value(), 288);
  EXPECT_EQ(find(b.forward, "unpermute").bytes.value(), 288);
  EXPECT_EQ(find_or_null(b.forward, "expert_sort"), nullptr);
  EXPECT_EQ(find(b.forward, "fc1").gemm.m, 4); // balanced: the same 8 rows over 2 experts
}

TEST(MoeOperators, DeepEpSendsATokenOncePerNode) {
  // 4 experts, top 2, ep 2, one member per node (2 experts each): a token misses a node with
  // probability (2 / 4) x (1 / 3) = 1/6, so reaches it with 5/6, where the copies average
  // 2 x 1 / 2 = 1: share 5/6.
  EXPECT_DOUBLE_EQ(deepep_network_share(4, 2, 2, 1), 5.0 / 6.0);
  // The whole group on one node: every token reaches it once for its top_k copies: 1 / 8.
  EXPECT_DOUBLE_EQ(deepep_network_share(256, 8, 64, 64), 1.0 / 8.0);
  // One expert a node and top 1: nothing to deduplicate.
  EXPECT_DOUBLE_EQ(deepep_network_share(8, 1, 8, 1), 1.0);
  // One group of all the experts, chosen by every token: the same as no groups.
  EXPECT_DOUBLE_EQ(deepep_network_share(4, 2, 2, 1, 1, 1), 5.0 / 6.0);
}

TEST(MoeOperators, GroupLimitedRoutingKeepsATokenOffTheNodesOfGroupsItDidNotChoose) {
  // DeepSeek-V3 over EP 64 on 8 nodes of 8: 256 experts, top 8, 8 groups of 32, 4 chosen.
  // Each node holds one group (32 experts): chosen with probability 4 / 8, and then the
  // token's 8 experts, drawn from the 4 x 32 = 128 of its groups, miss the node's 32 with
  // probability C(96, 8) / C(128, 8) = 0.0927. It reaches a node with 1/2 x (1 - 0.0927),
  // against 8 x 8 / 64 = 1 copy a node on average: 8 x 0.454 = 3.63 nodes a token, where
  // without groups 8 x (1 - C(224, 8) / C(256, 8)) = 5.29.
  double miss = 1.0;
  for (int i = 0; i < 8; ++i) miss *= (96.0 - i) / (128.0 - i);
  EXPECT_NEAR(deepep_network_share(256, 8, 64, 8, 8, 4), 0.5 * (1.0 - miss), 1e-12);
  EXPECT_NEAR(8.0 * deepep_network_share(256, 8, 64, 8), 5.29, 0.01);
  // Groups that straddle nodes: 6 experts in 2 groups of 3, top 2 from 1 chosen group, one
  // expert a rank and a node (ep 3, per node 1 over 2 experts each: on_node 2). Node 0 holds
  // experts 0-1 of group 0: reached when group 0 is chosen (1/2), as the other expert of the
  // group cannot take both copies: 1/2. Node 2 likewise: 1/2. Node 1 holds expert 2 of group 0
  // and expert 3 of group 1: whichever group is chosen, the token misses its one expert there
  // with C(2, 2) / C(3, 2) = 1/3: 2/3. Mean 5/9, against 2 x 1 / 3 = 2/3 copies: 5/6.
  EXPECT_NEAR(deepep_network_share(6, 2, 3, 1, 2, 1), 5.0 / 6.0, 1e-12);
}

TEST(MoeOperators, GroupedTilesFillTheWavesTogether) {
  // Each expert's output is one 128 x 128 tile on a 4-SM GPU: alone, one tile in a wave of 4
  // (1/4); two experts grouped, two tiles in that wave (1/2).
  GpuSpec gpu;
  gpu.sms = 4;
  EXPECT_DOUBLE_EQ(gemm_efficiency({128, 128, 64, 1}, gpu), 0.25);
  EXPECT_DOUBLE_EQ(gemm_efficiency({128, 128, 64, 2}, gpu), 0.5);
}

} // namespace
} // namespace trainsim
