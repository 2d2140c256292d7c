// The keys of the per-operator compute model (docs/scenario-format.md, docs/compute-model.md):
// what they default to, and one line for every way each can be wrong; and its profile's keys
// (models/scenario.hpp OperatorProfile), each on by default per operator, off under the
// roofline, each turned off on its own, shown in provenance.
#include <gtest/gtest.h>

#include <string>

#include "models/gpu_speed.hpp"
#include "models/step_compute.hpp"
#include "tools/io/provenance.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tools/io/scenario_writer.hpp"
#include "tests/tools/compute_keys_fixtures.hpp"

namespace trainsim {
namespace {

using testing::error_of;
using testing::execution_with;
using testing::gpu_with;
using testing::kValid;
using testing::model_with;
using testing::profiled;
using testing::with;

TEST(ComputeKeys, DefaultsPriceATransformerPerOperatorWithoutAVocabulary) {
  Scenario s = parse_scenario(kValid, "s.yaml").scenario;
  EXPECT_EQ(s.model.compute, ComputeModel::operators);
  EXPECT_EQ(s.model.kv_heads, 16); // multi-head: as many KV heads as heads
  EXPECT_EQ(s.model.vocab, 0);
  EXPECT_TRUE(s.model.biases);
  EXPECT_TRUE(s.model.dropout);
  EXPECT_FALSE(s.model.rotary);
  EXPECT_EQ(s.execution.recompute, Recompute::none);
  EXPECT_EQ(s.system.gpu.sms, 108); // the preset's figures
  // The MLP-block model stays the paper's roofline.
  Scenario mlp = parse_scenario(with(kValid, "kind: transformer", "kind: mlp"), "s.yaml").scenario;
  EXPECT_EQ(mlp.model.compute, ComputeModel::roofline);
}

TEST(ComputeKeys, ModelKeysAreRead) {
  Scenario s =
      parse_scenario(
          model_with(
              "  kv_heads: 4\n  vocab: 51200\n  biases: false\n  dropout: false\n  rotary: true\n"
              "  head_dim: 96\n  qk_norm: true\n"),
          "s.yaml")
          .scenario;
  EXPECT_EQ(s.model.kv_heads, 4);
  EXPECT_EQ(s.model.vocab, 51200);
  EXPECT_FALSE(s.model.biases);
  EXPECT_FALSE(s.model.dropout);
  EXPECT_TRUE(s.model.rotary);
  EXPECT_EQ(s.model.head_dim, 96);
  EXPECT_TRUE(s.model.qk_norm);
  EXPECT_EQ(parse_scenario(model_with("  compute: roofline\n"), "s.yaml").scenario.model.compute,
            ComputeModel::roofline);
}

TEST(ComputeKeys, ModelKeysAreChecked) {
  EXPECT_EQ(error_of(model_with("  kv_heads: 3\n")),
            "s.yaml: model.kv_heads = '3': must divide heads (16)");
  EXPECT_EQ(error_of(model_with("  kv_heads: 0\n")),
            "s.yaml: model.kv_heads = '0': must be greater than zero");
  EXPECT_EQ(error_of(model_with("  head_dim: 0\n")),
            "s.yaml: model.head_dim = '0': must be greater than zero");
  EXPECT_EQ(error_of(model_with("  vocab: -1\n")),
            "s.yaml: model.vocab = '-1': must not be negative (0: no embedding or LM head)");
  EXPECT_EQ(error_of(model_with("  compute: roofln\n")),
            "s.yaml: model.compute = 'roofln': must be one of operators, roofline (did you mean "
            "'roofline'?)");
  EXPECT_EQ(error_of(model_with("  compute: roofline\n  vocab: 100\n")),
            "s.yaml: model.vocab = '100': needs compute: operators (the roofline prices the layers "
            "only)");
  std::string mlp = with(kValid, "kind: transformer", "kind: mlp");
  EXPECT_EQ(error_of(with(mlp, "  seq_len: 1024\n", "  seq_len: 1024\n  compute: operators\n")),
            "s.yaml: model.compute = 'operators': needs kind: transformer (the MLP-block model is "
            "priced as a roofline)");
  EXPECT_EQ(error_of(with(mlp, "  seq_len: 1024\n", "  seq_len: 1024\n  rotary: true\n")),
            "s.yaml: model.rotary = 'true': applies to kind: transformer only (the MLP-block model "
            "has no such part)");
  EXPECT_EQ(error_of(with(mlp, "  seq_len: 1024\n", "  seq_len: 1024\n  qk_norm: true\n")),
            "s.yaml: model.qk_norm = 'true': applies to kind: transformer only (the MLP-block "
            "model has no such part)");
  EXPECT_EQ(error_of(with(mlp, "  seq_len: 1024\n", "  seq_len: 1024\n  head_dim: 64\n")),
            "s.yaml: model.head_dim = '64': applies to kind: transformer only (the MLP-block "
            "model has no such part)");
}


TEST(ComputeKeys, RecomputeEveryNeedsFullRecomputationAndNotRecomputeLayers) {
  EXPECT_EQ(parse_scenario(with(kValid, "execution:\n",
                                "execution:\n  recompute: full\n  recompute_every: 2\n"),
                           "s.yaml")
                .scenario.execution.recompute_every,
            2);
  EXPECT_EQ(error_of(with(kValid, "execution:\n", "execution:\n  recompute_every: 2\n")),
            "s.yaml: execution.recompute_every = '2': needs recompute: full (it says which layers "
            "of each chunk recompute)");
  EXPECT_EQ(error_of(with(kValid, "execution:\n",
                          "execution:\n  recompute: full\n  recompute_layers: 1\n"
                          "  recompute_every: 2\n")),
            "s.yaml: execution.recompute_every = '2': and recompute_layers both say which layers "
            "recompute; give one");
}

TEST(ComputeKeys, TwoCopyDualPipeIsRefusedAsNotBuilt) {
  // Named outright, not given the V-shaped variant that trainsim builds in its place.
  EXPECT_EQ(error_of(with(kValid, "execution:\n", "execution:\n  schedule: DualPipe\n")),
            "s.yaml: execution.schedule = 'DualPipe': DualPipe with two copies of the weights is "
            "not built: dualpipev is its V-shaped variant, the same pairing and bubble with one "
            "copy (docs/moe.md)");
}

TEST(ComputeKeys, OptimizerMomentsInBf16TakeEightBytesAParameter) {
  // FP32 master weights (4 B) and Adam's two moments: 4 + 4 + 4 = 12 B in FP32, 4 + 2 + 2 = 8
  // in BF16; the writer gives the key back.
  EXPECT_EQ(parse_scenario(kValid, "s.yaml").scenario.execution.optimizer_bytes_per_param,
            Bytes(12.0));
  Scenario bf16 =
      parse_scenario(execution_with("  optimizer_moments: bf16\n"), "s.yaml").scenario;
  EXPECT_EQ(bf16.execution.optimizer_bytes_per_param, Bytes(8.0));
  EXPECT_EQ(parse_scenario(scenario_yaml(bf16, ""), "s.yaml").scenario.execution
                .optimizer_bytes_per_param,
            Bytes(8.0));
  EXPECT_EQ(error_of(execution_with("  optimizer_moments: bf61\n")),
            "s.yaml: execution.optimizer_moments = 'bf61': must be one of fp32, bf16 (did you "
            "mean 'bf16'?)");
}

TEST(ComputeKeys, ExpertTensorParallelismFoldsOverTpAndDp) {
  // kValid has tp 8, dp 2: 16 ranks a stage. With 16 experts, etp 8 is what an unset etp
  // runs (each expert split as the attention); etp 1 folds EP over the stage's 16 ranks, so
  // ep 4 is allowed though it does not divide dp, and 16 / 4 = 4 ranks hold each expert.
  // etp 2 with ep 4 takes 8 of the 16: 16 / (4 x 2) = 2 ranks hold each half-expert; etp 16
  // splits each expert over both TP groups: 16 / 16 = 1.
  std::string moe = with(model_with("  experts: 16\n  top_k: 2\n"), "  tp: 8\n",
                         "  tp: 8\n  sequence_parallel: true\n");
  ExecutionSpec split = parse_scenario(moe + "  etp: 8\n", "s.yaml").scenario.execution;
  EXPECT_FALSE(split.experts_fold());
  EXPECT_EQ(split.expert_tp(), 8);
  Scenario folded = parse_scenario(moe + "  etp: 1\n  ep: 4\n", "s.yaml").scenario;
  EXPECT_TRUE(folded.execution.experts_fold());
  EXPECT_EQ(folded.execution.expert_replicas(), 4);
  EXPECT_EQ(parse_scenario(scenario_yaml(folded, ""), "s.yaml").scenario.execution.etp, 1);
  Scenario part = parse_scenario(moe + "  etp: 2\n  ep: 4\n", "s.yaml").scenario;
  EXPECT_TRUE(part.execution.experts_fold());
  EXPECT_EQ(part.execution.expert_replicas(), 2);
  EXPECT_EQ(parse_scenario(scenario_yaml(part, ""), "s.yaml").scenario.execution.etp, 2);
  Scenario wide = parse_scenario(moe + "  etp: 16\n", "s.yaml").scenario;
  EXPECT_TRUE(wide.execution.experts_fold());
  EXPECT_EQ(wide.execution.expert_replicas(), 1);
  // etp 3 x ep 1 = 3 ranks, which do not tile the stage's 16.
  EXPECT_EQ(error_of(moe + "  etp: 3\n"),
            "s.yaml: execution.etp = '3': ep x etp (1 x 3) must divide tp x dp (16), the ranks "
            "the experts fold over");
  EXPECT_EQ(error_of(with(model_with("  experts: 24\n  top_k: 2\n"), "  tp: 8\n",
                          "  tp: 8\n  sequence_parallel: true\n") +
                     "  etp: 1\n  ep: 3\n"),
            "s.yaml: execution.ep = '3': ep x etp (3 x 1) must divide tp x dp (16), the ranks "
            "the experts fold over");
  // ep 8 x etp 4 = 32 ranks, of the stage's 16.
  EXPECT_EQ(error_of(moe + "  etp: 4\n  ep: 8\n"),
            "s.yaml: execution.ep = '8': ep x etp (8 x 4) must divide tp x dp (16), the ranks "
            "the experts fold over");
  EXPECT_EQ(error_of(model_with("  experts: 16\n  top_k: 2\n") + "  etp: 1\n"),
            "s.yaml: execution.etp = '1': other than tp needs sequence_parallel: true "
            "(Megatron-Core runs an MoE layer under TP on sequence-parallel shards)");
  EXPECT_EQ(error_of(execution_with("  etp: 8\n")),
            "s.yaml: execution.etp = '8': applies to a mixture of experts only (model.experts > "
            "1; this model has 1)");
}

TEST(ComputeKeys, RecomputeLayersNeedsFullRecomputation) {
  EXPECT_EQ(parse_scenario(with(kValid, "execution:\n",
                                "execution:\n  recompute: full\n"
                                "  recompute_layers: 2\n"),
                           "s.yaml")
                .scenario.execution.recompute_layers,
            2);
  EXPECT_EQ(error_of(with(kValid, "execution:\n", "execution:\n  recompute_layers: 2\n")),
            "s.yaml: execution.recompute_layers = '2': needs recompute: full (it says which layers "
            "of each chunk recompute)");
}

TEST(ComputeKeys, AttentionIsFlashUnlessTheScenarioSaysUnfused) {
  EXPECT_EQ(parse_scenario(kValid, "s.yaml").scenario.model.attention, AttentionKernel::flash);
  EXPECT_EQ(parse_scenario(model_with("  attention: unfused\n"), "s.yaml").scenario.model.attention,
            AttentionKernel::unfused);
  EXPECT_EQ(error_of(model_with("  attention: fused\n")),
            "s.yaml: model.attention = 'fused': must be one of flash, cudnn, unfused (did you "
            "mean 'unfused'?)");
  EXPECT_EQ(error_of(model_with("  attention: unfused\n  compute: roofline\n")),
            "s.yaml: model.attention = 'unfused': needs a transformer priced per operator "
            "(model.compute: operators)");
  std::string mlp = with(kValid, "kind: transformer", "kind: mlp");
  EXPECT_EQ(error_of(with(mlp, "  seq_len: 1024\n", "  seq_len: 1024\n  attention: flash\n")),
            "s.yaml: model.attention = 'flash': applies to kind: transformer only (the MLP-block "
            "model has no such part)");
}

TEST(ComputeKeys, CudnnAttentionNeedsTheGpusTableOfIt) {
  // The A100 preset has no cuDNN attention table; the H100's has one, and a GPU given one rate
  // for it runs with that.
  EXPECT_EQ(error_of(model_with("  attention: cudnn\n")),
            "s.yaml: model.attention = 'cudnn': needs the GPU's cuDNN attention rates, which "
            "preset a100-sxm-80gb does not have (system.gpu.cudnn_attention gives one rate; or "
            "attention: flash)");
  std::string h100 = with(model_with("  attention: cudnn\n"), "a100-sxm-80gb", "h100-sxm");
  EXPECT_EQ(parse_scenario(h100, "s.yaml").scenario.model.attention, AttentionKernel::cudnn);
  Scenario given =
      parse_scenario(with(model_with("  attention: cudnn\n"), "{preset: a100-sxm-80gb}",
                          "{preset: a100-sxm-80gb, cudnn_attention: 200 TFLOPS}"),
                     "s.yaml")
          .scenario;
  EXPECT_EQ(given.system.gpu.cudnn_attention.d128[3], FlopPerSecond(200e12));
  EXPECT_EQ(error_of(with(kValid, "{preset: a100-sxm-80gb}",
                          "{preset: a100-sxm-80gb, cudnn_attention: 400 TFLOPS}")),
            "s.yaml: system.gpu.cudnn_attention = '400 TFLOP/s': exceeds the peak (312 TFLOP/s)");
}

TEST(ComputeKeys, RecomputeIsNoneFullOrSelective) {
  auto recompute = [](const std::string& v) {
    return parse_scenario(execution_with("  recompute: " + v + "\n"), "s.yaml")
        .scenario.execution.recompute;
  };
  EXPECT_EQ(recompute("true"), Recompute::full); // the spelling scenarios have always used
  EXPECT_EQ(recompute("full"), Recompute::full);
  EXPECT_EQ(recompute("false"), Recompute::none);
  EXPECT_EQ(recompute("selective"), Recompute::selective);
  EXPECT_EQ(error_of(execution_with("  recompute: selectve\n")),
            "s.yaml: execution.recompute = 'selectve': must be one of none, full, selective, true, "
            "false (did you "
            "mean 'selective'?)");
  EXPECT_EQ(error_of(with(execution_with("  recompute: selective\n"), "  seq_len: 1024\n",
                          "  seq_len: 1024\n  compute: roofline\n")),
            "s.yaml: execution.recompute = 'selective': selective needs a transformer priced per "
            "operator "
            "(model.compute: operators)");
}

TEST(ComputeKeys, GpuFiguresOverrideThePreset) {
  GpuSpec g =
      parse_scenario(
          gpu_with(
              "sms: 100, gemm_peak: 250TFLOPS, flash_attention: 150TFLOPS, hbm_efficiency: 0.9"),
          "s.yaml")
          .scenario.system.gpu;
  EXPECT_EQ(g.sms, 100);
  EXPECT_DOUBLE_EQ(g.gemm_peak.value(), 250e12);
  EXPECT_DOUBLE_EQ(g.flash_attention.d64[0].value(), 150e12); // one rate for every shape
  EXPECT_DOUBLE_EQ(g.flash_attention.d128[5].value(), 150e12);
  EXPECT_DOUBLE_EQ(g.hbm_efficiency, 0.9);
  // A new peak alone scales what the preset achieves of it: twice the A100's 312 TFLOP/s
  // keeps 271.2 / 312 of it for GEMMs (542.4 TFLOP/s) and doubles the attention table (A100,
  // d_head 64, 512 tokens: 88 TFLOP/s).
  GpuSpec twice = parse_scenario(gpu_with("peak: 624TFLOPS"), "s.yaml").scenario.system.gpu;
  EXPECT_DOUBLE_EQ(twice.gemm_peak.value(), 542.4e12);
  EXPECT_DOUBLE_EQ(twice.flash_attention.d64[0].value(), 176e12);
}

TEST(ComputeKeys, GpuFiguresAreChecked) {
  EXPECT_EQ(error_of(gpu_with("sms: 0")),
            "s.yaml: system.gpu.sms = '0': must be greater than zero");
  EXPECT_EQ(error_of(gpu_with("gemm_peak: 400TFLOPS")),
            "s.yaml: system.gpu.gemm_peak = '400 TFLOP/s': exceeds the peak (312 TFLOP/s): it is "
            "what GEMMs achieve of it");
  EXPECT_EQ(error_of(gpu_with("flash_attention: 1PFLOPS")),
            "s.yaml: system.gpu.flash_attention = '1 PFLOP/s': exceeds the peak (312 TFLOP/s)");
  EXPECT_EQ(error_of(gpu_with("hbm_efficiency: 1.5")),
            "s.yaml: system.gpu.hbm_efficiency = '1.5': is a fraction of hbm_bandwidth and cannot "
            "exceed 1");
  EXPECT_EQ(error_of(gpu_with("hbm_efficiency: 0")),
            "s.yaml: system.gpu.hbm_efficiency = '0': must be greater than zero");
  EXPECT_EQ(error_of(gpu_with("speed_spread: -0.01")),
            "s.yaml: system.gpu.speed_spread = '-0.01': is a relative standard deviation: at "
            "least 0 and below 0.1");
  EXPECT_EQ(error_of(gpu_with("speed_spread: 0.2")),
            "s.yaml: system.gpu.speed_spread = '0.2': is a relative standard deviation: at least "
            "0 and below 0.1");
  // 0: every GPU at the preset's figures.
  EXPECT_EQ(parse_scenario(gpu_with("speed_spread: 0"), "s.yaml").scenario.system.gpu.speed_spread,
            0.0);
}

Scenario with_model_lines(const std::string& lines) {
  return parse_scenario(with(profiled(), "  vocab: 32000\n", "  vocab: 32000\n" + lines), "s.yaml")
      .scenario;
}

// Which features a scenario's pricing uses, read from the functions that price them.
struct Used {
  bool embedding, optimizer, clipping, curve, uneven;
  friend bool operator==(const Used&, const Used&) = default;
};
Used used(const Scenario& s) {
  return {embedding_time(s).forward.total() > Seconds(), optimizer_time(s, 0).total() > Seconds(),
          clips_over_dp(s), collective_efficiency(s) != nullptr, slowest_gpu(s) > 1.0};
}

TEST(ProfileKeys, EachIsOnPerOperatorAndTurnsOffAlone) {
  Scenario all = with_model_lines("");
  EXPECT_EQ(used(all), (Used{true, true, true, true, true}));
  EXPECT_EQ(used(with_model_lines("  embedding_kernels: false\n")),
            (Used{false, true, true, true, true}));
  EXPECT_EQ(used(with_model_lines("  optimizer_step: false\n")),
            (Used{true, false, true, true, true}));
  EXPECT_EQ(used(with_model_lines("  gradient_clipping: false\n")),
            (Used{true, true, false, true, true}));
  EXPECT_EQ(used(with_model_lines("  nvlink_curve: false\n")),
            (Used{true, true, true, false, true}));
  EXPECT_EQ(used(with_model_lines("  uneven_gpus: false\n")),
            (Used{true, true, true, true, false}));
  // The head's kernels go with the embedding's: both are the vocabulary's.
  EXPECT_EQ(head_time(with_model_lines("  embedding_kernels: false\n")).forward.total(), Seconds());
}

TEST(ProfileKeys, TheRooflineUsesNoneAndProvenanceSaysSo) {
  Scenario roofline =
      parse_scenario(with(profiled(), "  vocab: 32000\n", "  compute: roofline\n"), "s.yaml")
          .scenario;
  EXPECT_EQ(used(roofline), (Used{false, false, false, false, false}));
  auto model = provenance_json(roofline).at("scenario").at("model");
  for (const char* key :
       {"embedding_kernels", "optimizer_step", "gradient_clipping", "nvlink_curve", "uneven_gpus"})
    EXPECT_EQ(model.at(key), false) << key;
  auto per_operator =
      provenance_json(with_model_lines("  nvlink_curve: false\n")).at("scenario").at("model");
  EXPECT_EQ(per_operator.at("optimizer_step"), true);
  EXPECT_EQ(per_operator.at("nvlink_curve"), false);
}

TEST(ProfileKeys, RefusedWhereTheyCannotApply) {
  std::string roofline = with(profiled(), "  vocab: 32000\n", "  compute: roofline\n");
  EXPECT_EQ(error_of(with(roofline, "  compute: roofline\n",
                          "  compute: roofline\n  optimizer_step: true\n")),
            "s.yaml: model.optimizer_step = 'true': needs compute: operators (the roofline "
            "prices the layers' kernels only)");
  // Off under the roofline says what already holds.
  EXPECT_NO_THROW((void)parse_scenario(
      with(roofline, "  compute: roofline\n", "  compute: roofline\n  uneven_gpus: false\n"),
      "s.yaml"));
  std::string mlp =
      with(with(profiled(), "kind: transformer", "kind: mlp"), "  vocab: 32000\n", "");
  EXPECT_EQ(error_of(with(mlp, "  seq_len: 1024\n", "  seq_len: 1024\n  nvlink_curve: false\n")),
            "s.yaml: model.nvlink_curve = 'false': applies to kind: transformer only (the "
            "MLP-block model is priced as a roofline, without the per-operator profile)");
  // A spread the file asks for where it cannot apply would silently do nothing; 0 says what
  // holds.
  std::string spread = "{preset: h100-sxm, speed_spread: 0.02}";
  EXPECT_EQ(error_of(with(roofline, "{preset: h100-sxm}", spread)),
            "s.yaml: system.gpu.speed_spread = '0.02': applies to a transformer priced per "
            "operator with model.uneven_gpus on (the roofline runs every GPU at the figures)");
  EXPECT_NE(error_of(with(with(profiled(), "{preset: h100-sxm}", spread), "  vocab: 32000\n",
                          "  vocab: 32000\n  uneven_gpus: false\n"))
                .find("system.gpu.speed_spread"),
            std::string::npos);
  EXPECT_NO_THROW((void)parse_scenario(
      with(roofline, "{preset: h100-sxm}", "{preset: h100-sxm, speed_spread: 0}"), "s.yaml"));
  EXPECT_NE(
      error_of(with(profiled(), "  vocab: 32000\n", "  vocab: 32000\n  gradient_clipping: maybe\n"))
          .find("model.gradient_clipping"),
      std::string::npos);
}

} // namespace
} // namespace trainsim
