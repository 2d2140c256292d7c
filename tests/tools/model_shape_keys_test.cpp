// The keys that shape today's frontier models (docs/scenario-format.md): mixture-of-experts
// shapes, latent attention, sliding windows and multi-token prediction; what each reads, and
// one line for every way each can be wrong.
#include <gtest/gtest.h>

#include <string>

#include "tools/io/scenario_loader.hpp"
#include "tests/tools/compute_keys_fixtures.hpp"

namespace trainsim {
namespace {

using testing::error_of;
using testing::execution_with;
using testing::model_with;
using testing::with;

TEST(ComputeKeys, ExpertShapesApplyToAMixtureOfExpertsOnly) {
  Scenario s = parse_scenario(model_with("  experts: 8\n  top_k: 2\n  moe_d_ff: 1024\n"
                                         "  shared_experts: 2\n"),
                              "s.yaml")
                   .scenario;
  EXPECT_EQ(s.model.moe_d_ff, 1024);
  EXPECT_EQ(s.model.expert_d_ff(), 1024);
  EXPECT_EQ(s.model.shared_experts, 2);
  EXPECT_EQ(error_of(model_with("  moe_d_ff: 1024\n")),
            "s.yaml: model.moe_d_ff = '1024': applies to a mixture of experts only "
            "(model.experts > 1; this model has 1)");
  EXPECT_EQ(error_of(model_with("  experts: 1\n  shared_experts: 1\n")),
            "s.yaml: model.shared_experts = '1': applies to a mixture of experts only "
            "(model.experts > 1; this model has 1)");
  EXPECT_EQ(error_of(model_with("  experts: 8\n  shared_experts: -1\n")),
            "s.yaml: model.shared_experts = '-1': must be 0 or more");
  EXPECT_EQ(error_of(model_with("  experts: 8\n  dense_layers: 4\n")),
            "s.yaml: model.dense_layers = '4': must be fewer than the model's 4 layers (the rest "
            "are the experts')");
  EXPECT_EQ(error_of(model_with("  dense_layers: 1\n")),
            "s.yaml: model.dense_layers = '1': applies to a mixture of experts only "
            "(model.experts > 1; this model has 1)");
  EXPECT_EQ(error_of(model_with("  experts: 8\n  moe_d_ff: 0\n")),
            "s.yaml: model.moe_d_ff = '0': must be greater than zero");
}

TEST(ComputeKeys, ExpertKernelKeysApplyToAMixtureOfExpertsOnly) {
  Scenario s = parse_scenario(model_with("  experts: 8\n  top_k: 2\n"), "s.yaml").scenario;
  EXPECT_TRUE(s.model.moe_grouped_gemm); // as the Megatron-Bridge MoE recipes run
  EXPECT_FALSE(s.model.router_fp32);
  s = parse_scenario(model_with("  experts: 8\n  moe_grouped_gemm: false\n"
                                "  moe_router_dtype: fp32\n"),
                     "s.yaml")
          .scenario;
  EXPECT_FALSE(s.model.moe_grouped_gemm);
  EXPECT_TRUE(s.model.router_fp32);
  EXPECT_EQ(error_of(model_with("  moe_grouped_gemm: true\n")),
            "s.yaml: model.moe_grouped_gemm = 'true': applies to a mixture of experts only "
            "(model.experts > 1; this model has 1)");
  EXPECT_EQ(error_of(model_with("  moe_router_dtype: fp32\n")),
            "s.yaml: model.moe_router_dtype = 'fp32': applies to a mixture of experts only "
            "(model.experts > 1; this model has 1)");
  EXPECT_EQ(error_of(model_with("  experts: 8\n  moe_router_dtype: fp33\n")),
            "s.yaml: model.moe_router_dtype = 'fp33': must be one of bf16, fp32 (did you mean "
            "'fp32'?)");
}

TEST(ComputeKeys, GroupLimitedRoutingTakesBothKeysAndEnoughExperts) {
  // DeepSeek-V3's: 256 experts in 8 groups of 32, top 8 from 4 groups (128 experts).
  std::string moe = "  experts: 256\n  top_k: 8\n";
  Scenario s =
      parse_scenario(model_with(moe + "  moe_router_num_groups: 8\n  moe_router_group_topk: 4\n"),
                     "s.yaml")
          .scenario;
  EXPECT_EQ(s.model.router_groups, 8);
  EXPECT_EQ(s.model.router_group_topk, 4);
  EXPECT_EQ(parse_scenario(model_with(moe), "s.yaml").scenario.model.router_groups, 0);
  auto refused = [&](const std::string& keys) { return error_of(model_with(moe + keys)); };
  EXPECT_EQ(refused("  moe_router_num_groups: 3\n  moe_router_group_topk: 1\n"),
            "s.yaml: model.moe_router_num_groups = '3': must divide the model's 256 experts");
  EXPECT_EQ(refused("  moe_router_num_groups: 8\n"),
            "s.yaml: model.moe_router_num_groups = '8': needs moe_router_group_topk");
  EXPECT_EQ(refused("  moe_router_group_topk: 4\n"),
            "s.yaml: model.moe_router_group_topk = '4': needs moe_router_num_groups");
  EXPECT_EQ(refused("  moe_router_num_groups: 4\n  moe_router_group_topk: 8\n"),
            "s.yaml: model.moe_router_group_topk = '8': must be at most moe_router_num_groups (4)");
  EXPECT_EQ(refused("  moe_router_num_groups: 16\n  moe_router_group_topk: 9\n"),
            "s.yaml: model.moe_router_group_topk = '9': must be at most top_k (8): each group is "
            "scored by its best top_k / group_topk experts");
  // 64 groups of 4 experts, 1 chosen: 4 experts for a top 8.
  EXPECT_EQ(refused("  moe_router_num_groups: 64\n  moe_router_group_topk: 1\n"),
            "s.yaml: model.moe_router_group_topk = '1': the chosen groups hold 4 experts, fewer "
            "than top_k (8)");
  EXPECT_EQ(error_of(model_with("  moe_router_num_groups: 8\n")),
            "s.yaml: model.moe_router_num_groups = '8': applies to a mixture of experts only "
            "(model.experts > 1; this model has 1)");
}

TEST(ComputeKeys, ExpertExecutionKeysAreRead) {
  // 8 experts, top 2, ep 2 inside dp 2.
  std::string moe = with(execution_with("  ep: 2\n"), "  seq_len: 1024\n",
                         "  seq_len: 1024\n  experts: 8\n  top_k: 2\n");
  Scenario s = parse_scenario(moe + "  moe_capacity_factor: 1.25\n  moe_pad_to_capacity: true\n",
                              "s.yaml")
                   .scenario;
  EXPECT_DOUBLE_EQ(s.execution.moe_capacity_factor, 1.25);
  EXPECT_TRUE(s.execution.moe_pad_to_capacity);
  EXPECT_EQ(parse_scenario(moe, "s.yaml").scenario.execution.moe_capacity_factor, 0.0);
  EXPECT_EQ(error_of(moe + "  moe_capacity_factor: 0\n"),
            "s.yaml: execution.moe_capacity_factor = '0': must be greater than zero");
  // The all-gather dispatcher on tp 1: dp 16, 16 sequences.
  std::string flat = with(with(with(moe, "  tp: 8\n", "  tp: 1\n"), "  dp: 2\n", "  dp: 16\n"),
                          "  global_batch: 8\n", "  global_batch: 16\n");
  EXPECT_EQ(parse_scenario(flat + "  moe_dispatcher: allgather\n", "s.yaml")
                .scenario.execution.moe_dispatcher,
            MoeDispatcher::allgather);
  EXPECT_EQ(error_of(moe + "  moe_dispatcher: all_gather\n"),
            "s.yaml: execution.moe_dispatcher = 'all_gather': must be one of alltoall, allgather "
            "(did you mean 'allgather'?)");
  EXPECT_EQ(error_of(moe + "  moe_capacity_factor: 1.0.1\n"),
            "s.yaml: execution.moe_capacity_factor = '1.0.1': is not a number");
}

TEST(ComputeKeys, LatentAttentionTakesItsOwnSizes) {
  const std::string mla = "  attention_kind: mla\n  q_lora_rank: 64\n  kv_lora_rank: 32\n"
                          "  qk_rope_head_dim: 16\n  qk_nope_head_dim: 32\n  v_head_dim: 32\n";
  Scenario s = parse_scenario(model_with(mla), "s.yaml").scenario;
  EXPECT_TRUE(s.model.mla.on());
  EXPECT_EQ(s.model.mla.q_lora_rank, 64);
  EXPECT_EQ(s.model.mla.kv_lora_rank, 32);
  EXPECT_EQ(s.model.mla.qk_head_dim(), 48);
  EXPECT_EQ(s.model.mla.v_head_dim, 32);
  EXPECT_EQ(error_of(model_with(mla + "  head_dim: 64\n")),
            "s.yaml: model.head_dim = '64': does not apply with attention_kind: mla (its heads are "
            "qk_nope_head_dim + qk_rope_head_dim wide, its values v_head_dim)");
  EXPECT_EQ(error_of(model_with(mla + "  qk_norm: true\n")),
            "s.yaml: model.qk_norm = 'true': does not apply with attention_kind: mla (it norms "
            "its latents instead)");
  EXPECT_EQ(error_of(model_with("  kv_lora_rank: 32\n")),
            "s.yaml: model.kv_lora_rank = '32': needs attention_kind: mla");
  EXPECT_EQ(error_of(model_with("  attention_kind: mla\n  kv_lora_rank: 32\n")),
            "s.yaml: model.qk_rope_head_dim = '': is missing");
  EXPECT_EQ(error_of(model_with("  attention_kind: mlaa\n")),
            "s.yaml: model.attention_kind = 'mlaa': must be one of mha, mla (did you mean "
            "'mla'?)");
  EXPECT_EQ(error_of(model_with(mla + "  attention: unfused\n")),
            "s.yaml: model.attention = 'unfused': is not modelled with attention_kind: mla (its "
            "core runs as flash attention)");
}

TEST(ComputeKeys, AWindowIsShorterThanTheSequence) {
  Scenario s = parse_scenario(model_with("  window: 128\n  full_attention_every: 2\n"
                                         "  attention_sinks: true\n"),
                              "s.yaml")
                   .scenario;
  EXPECT_EQ(s.model.window, 128);
  EXPECT_EQ(s.model.full_attention_every, 2);
  EXPECT_TRUE(s.model.attention_sinks);
  EXPECT_EQ(error_of(model_with("  window: 1024\n")),
            "s.yaml: model.window = '1024': must be shorter than seq_len (1024): a window as long "
            "is full attention");
  EXPECT_EQ(error_of(model_with("  full_attention_every: 2\n")),
            "s.yaml: model.full_attention_every = '2': needs a window (model.window): without one "
            "every layer attends to the whole sequence");
}

TEST(ComputeKeys, MtpLayersNeedAVocabulary) {
  Scenario s =
      parse_scenario(model_with("  vocab: 32000\n  mtp_layers: 1\n"), "s.yaml").scenario;
  EXPECT_EQ(s.model.mtp_layers, 1);
  EXPECT_EQ(s.model.stack_layers(), 5);
  EXPECT_EQ(error_of(model_with("  mtp_layers: 1\n")),
            "s.yaml: model.mtp_layers = '1': needs model.vocab: each module runs the embedding "
            "and the LM head");
  EXPECT_EQ(error_of(model_with("  vocab: 32000\n  mtp_layers: -1\n")),
            "s.yaml: model.mtp_layers = '-1': must be 0 or more");
}

} // namespace
} // namespace trainsim
