// Every knob a user sets moves the step the way docs/scenario-format.md says, and the defaults
// are what real clusters run, so that a comparison made on them ranks the way a real one would.
#include "tests/tools/step_fixtures.hpp"

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

} // namespace
} // namespace trainsim
