// Every knob a user sets moves the step the way docs/scenario-format.md says, and the defaults
// are what real clusters run, so that a comparison made on them ranks the way a real one would.
#include "tests/sim/step_fixtures.hpp"

#include "tests/tools/loader_fixtures.hpp"
#include "topologies/fat_tree.hpp"

namespace trainsim {
namespace {

using namespace testing;

// A Mixtral-8x7B-like model (32 layers, 8 experts, top-2, GQA with 8 KV heads, Llama-style
// layers) on 256 GPUs at tp 4 x ep 8 x dp 64, 8 microbatches per replica: its all-to-alls and
// DP rings cross the spines.
Scenario mixtral_like(topo::FatTreeParams fabric) {
  ModelSpec m{.layers = 32,
              .d_model = 4096,
              .d_ff = 14336,
              .heads = 32,
              .seq_len = 4096,
              .experts = 8,
              .top_k = 2,
              .gated_mlp = true};
  m.kv_heads = 8;
  m.biases = m.dropout = false;
  m.rotary = true;
  return scenario(std::move(fabric), {.dp = 64, .tp = 4, .ep = 8, .global_batch = 512}, m,
                  h100());
}

double step_on(topo::FatTreeParams fabric) {
  return simulate(mixtral_like(std::move(fabric))).result.step_time.value();
}

// 32 DGX H100 nodes: 8 rail leaves of 32 NICs with 32 uplinks each, non-blocking.
topo::FatTreeParams dgx_pod() {
  topo::FatTreeParams p = topo::dgx_h100_defaults();
  p.nodes = 32;
  return p;
}

// The same 256 GPUs on a contiguous fat tree whose leaves have a quarter of the uplinks.
topo::FatTreeParams four_to_one() {
  topo::FatTreeParams p;
  p.nodes = 32;
  p.oversubscription = 4;
  return p;
}

TEST(Defaults, TheNonBlockingRailFabricBeatsAFourToOneTreeUnderTheDefaultRouting) {
  // Adaptive routing (spray) loads every uplink alike: the rail fabric has 4x the fat tree's
  // uplink bandwidth per leaf and must not lose to it. Under static per-pair hashing (the
  // default until 2026-12) two flows landed on one uplink here and there, and the rail fabric
  // lost: 4.35 s against 3.51 s (2.72 s against 3.01 s sprayed), measured with `trainsim run`.
  EXPECT_EQ(topo::FatTreeParams{}.ecmp, "spray");
  double rail = step_on(dgx_pod()), tree = step_on(four_to_one());
  EXPECT_LT(rail, tree);
}

TEST(Knobs, StaticPairHashingIsSlowerThanAdaptiveRoutingOnTheSameFabric) {
  // `ecmp: pair` picks one uplink per GPU pair by hash; some uplinks carry two flows while
  // others idle, which adaptive routing (spray) never does: the step can only get longer.
  topo::FatTreeParams pair = dgx_pod();
  pair.ecmp = "pair";
  double hashed = step_on(pair), sprayed = step_on(dgx_pod());
  EXPECT_GT(hashed, 1.05 * sprayed);
}

// The default scenario's model and plan (scenarios/default.yaml), built in code: a Llama-like 7B
// on 8 nodes of 8 H100s, tp 8 x pp 2 x dp 4, 16 microbatches per pipeline.
Scenario llama_7b_like(ExecutionSpec e) {
  ModelSpec m{.layers = 32,
              .d_model = 4096,
              .d_ff = 11008,
              .heads = 32,
              .seq_len = 4096,
              .gated_mlp = true};
  e.dp = 4;
  e.tp = 8;
  e.pp = 2;
  e.global_batch = 64;
  return scenario(fat_tree(8), e, m, h100());
}

TEST(Knobs, OverlappingTheGradientReductionHidesMostOfItAtTheDefaultBucket) {
  // A stage holds 16 of the 32 layers, 1/8 of each (tp 8): 16 x (4 x 4096^2 + 3 x 4096 x
  // 11008) / 8 = 405M parameters, 0.81 GB of BF16 gradients. Megatron-LM's default bucket, 40M
  // parameters (80 MB) at dp 4, splits them into about 10 buckets, all but the last reduced
  // while the last backward pass still runs: about a tenth of the reduction shows, plus each
  // bucket's ring latencies. (The old 1 GB default held all of it in one bucket, which started
  // after the pass: nothing hid, 27.2 ms against 27.1.)
  ExecutionSpec overlap;
  overlap.dp_overlap = true;
  Outcome serial = simulate(llama_7b_like({})), hidden = simulate(llama_7b_like(overlap));
  double before = category(serial.summary, "dp_comm"), after = category(hidden.summary, "dp_comm");
  EXPECT_GT(before, 0.0);
  EXPECT_LT(after, 0.35 * before);
  EXPECT_LT(hidden.result.step_time, serial.result.step_time);
}

// A transformer on a preset, as a user writes it: tp 8 on one node, so that the step is its
// kernels and NVLink all-reduces.
const std::string kOnAPreset = R"(model:
  layers: 4
  d_model: 8192
  d_ff: 32768
  heads: 64
  seq_len: 4096
system:
  gpu: {preset: h100-sxm}
  topology: {generator: fat-tree, nodes: 1}
execution:
  tp: 8
  global_batch: 4
)";

TEST(Knobs, MatmulEfficiencySetsAPresetsGemmRate) {
  // The preset's measured gemm_peak (708.5 TFLOP/s) gives way to peak x matmul_efficiency:
  // 989 x 0.4 = 395.6 TFLOP/s, for the per-operator model and the bound alike.
  LoadedScenario preset = parse_scenario(kOnAPreset, "s.yaml");
  LoadedScenario slow = parse_scenario(
      with(kOnAPreset, "{preset: h100-sxm}", "{preset: h100-sxm, matmul_efficiency: 0.4}"),
      "s.yaml");
  EXPECT_DOUBLE_EQ(preset.scenario.system.gpu.gemm_peak.value(), 708.5e12);
  EXPECT_DOUBLE_EQ(slow.scenario.system.gpu.gemm_peak.value(), 989e12 * 0.4);
  // The GEMMs (most of these kernels' FLOP) run 708.5 / 395.6 = 1.79x longer: compute grows
  // by well over half, and the bound's with it.
  Evaluation fast = evaluate(preset, {}), slowed = evaluate(slow, {});
  EXPECT_GT(category(slowed.summary, "compute"), 1.5 * category(fast.summary, "compute"));
  EXPECT_GT(slowed.summary.bound.value(), 1.3 * fast.summary.bound.value());
}

TEST(Knobs, MatmulEfficiencyAndGemmPeakTogetherAreRefused) {
  EXPECT_EQ(error_of(with(kOnAPreset, "{preset: h100-sxm}",
                          "{preset: h100-sxm, matmul_efficiency: 0.5, gemm_peak: 600TFLOPS}")),
            "s.yaml: system.gpu.matmul_efficiency = '0.5': and gemm_peak both set the matmul rate "
            "(gemm_peak is peak x matmul_efficiency); give one");
}

LoadedScenario at_precision(const std::string& precision) {
  return parse_scenario(with(kOnAPreset, "  seq_len: 4096\n",
                             "  seq_len: 4096\n  precision: " + precision + "\n"),
                        "s.yaml");
}

TEST(Knobs, Fp8RecipesNeedFp8AndMxfp8NeedsBlackwell) {
  EXPECT_EQ(at_precision("fp8").scenario.model.fp8_recipe, Fp8Recipe::tensorwise);
  EXPECT_EQ(error_of(with(kOnAPreset, "  seq_len: 4096\n",
                          "  seq_len: 4096\n  fp8_recipe: blockwise\n")),
            "s.yaml: model.fp8_recipe = 'blockwise': needs precision: fp8");
  EXPECT_EQ(error_of(with(kOnAPreset, "  seq_len: 4096\n",
                          "  seq_len: 4096\n  precision: fp8\n  fp8_recipe: mxfp8\n")),
            "s.yaml: model.fp8_recipe = 'mxfp8': needs Blackwell's MXFP8 tensor cores (b200, "
            "b300, gb200, gb300); the h100-sxm has none: use tensorwise or blockwise");
  EXPECT_EQ(parse_scenario(with(with(kOnAPreset, "{preset: h100-sxm}", "{preset: b200}"),
                                "  seq_len: 4096\n",
                                "  seq_len: 4096\n  precision: fp8\n  fp8_recipe: mxfp8\n"),
                           "s.yaml")
                .scenario.model.fp8_recipe,
            Fp8Recipe::mxfp8);
}

TEST(Knobs, PrecisionTakesThePresetsPeakAndMatmulRateAtIt) {
  // H100 SXM dense peaks (datasheet): FP32 67 (CUDA cores: frameworks keep FP32 matmuls off
  // TF32), BF16 and FP16 989, FP8 1,979 TFLOP/s. The measured BF16 gemm_peak, 708.5 TFLOP/s,
  // scales with the peak to 48.0 at FP32; at FP8 the measured sustained FP8 rate of the same
  // GH100 compute, the H200's 1288.7.
  GpuSpec bf16 = at_precision("bf16").scenario.system.gpu,
          fp16 = at_precision("fp16").scenario.system.gpu,
          fp8 = at_precision("fp8").scenario.system.gpu,
          fp32 = at_precision("fp32").scenario.system.gpu;
  EXPECT_DOUBLE_EQ(bf16.peak.value(), 989e12);
  EXPECT_DOUBLE_EQ(fp16.peak.value(), 989e12);
  EXPECT_DOUBLE_EQ(fp8.peak.value(), 1979e12);
  EXPECT_DOUBLE_EQ(fp32.peak.value(), 67e12);
  EXPECT_DOUBLE_EQ(fp8.gemm_peak.value(), 1288.7e12);
  EXPECT_NEAR(fp32.gemm_peak.value(), 708.5e12 * 67 / 989, 1e3);
  EXPECT_TRUE(bf16.estimates.empty());
  EXPECT_TRUE(fp8.estimates.empty());   // a measured rate
  EXPECT_FALSE(fp32.estimates.empty()); // a scaled rate is an estimate, and says so
  // FP8 training keeps its weights and activations in BF16: the same word.
  EXPECT_DOUBLE_EQ(at_precision("fp8").scenario.model.bytes_per_word.value(), 2.0);
  // FP8 GEMMs at twice the rate shorten the step; FP32's at a fifteenth lengthen it manifold.
  Evaluation b = evaluate(at_precision("bf16"), {}), e8 = evaluate(at_precision("fp8"), {}),
             e32 = evaluate(at_precision("fp32"), {});
  EXPECT_LT(e8.result.step_time, b.result.step_time);
  EXPECT_GT(e32.result.step_time.value(), 5 * b.result.step_time.value());
  // MFU is against the precision's own peak: model FLOP / (GPUs x step x peak).
  double flop = b.summary.mfu * 8 * b.result.step_time.value() * 989e12;
  EXPECT_NEAR(e8.summary.mfu, flop / (8 * e8.result.step_time.value() * 1979e12), 1e-9);
}

TEST(Knobs, APrecisionTheGpuLacksIsRefused) {
  EXPECT_EQ(error_of(with(with(kOnAPreset, "{preset: h100-sxm}", "{preset: a100-sxm-80gb}"),
                          "  seq_len: 4096\n", "  seq_len: 4096\n  precision: fp8\n")),
            "s.yaml: model.precision = 'fp8': the a100-sxm-80gb has no fp8 tensor cores; use bf16 "
            "or fp16, or a GPU that has them (h100-sxm, h200-sxm, b200, b300, gb200, gb300)");
}

TEST(Defaults, TheHostLinkIsTheGpusOwnInterface) {
  // kOnAPreset's fabric sets no pcie_bandwidth: the GPU's x16 host interface stands in, PCIe 5
  // (64 GB/s a direction) on an H100, PCIe 4 (32) on an A100, PCIe 6 (128) on a B200; a value
  // the section gives is kept.
  auto host_link = [](const std::string& text) {
    LoadedScenario l = parse_scenario(text, "s.yaml");
    return std::get<topo::FatTreeParams>(l.scenario.system.topology.params).pcie_bandwidth.value();
  };
  EXPECT_DOUBLE_EQ(host_link(kOnAPreset), 64e9);
  EXPECT_DOUBLE_EQ(host_link(with(kOnAPreset, "{preset: h100-sxm}", "{preset: a100-sxm-80gb}")),
                   32e9);
  EXPECT_DOUBLE_EQ(host_link(with(kOnAPreset, "{preset: h100-sxm}", "{preset: b200}")), 128e9);
  EXPECT_DOUBLE_EQ(host_link(with(kOnAPreset, "nodes: 1}", "nodes: 1, pcie_bandwidth: 50GBps}")),
                   50e9);
}

} // namespace
} // namespace trainsim
