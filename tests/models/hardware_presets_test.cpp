#include "models/hardware_presets.hpp"

#include <gtest/gtest.h>

#include "models/error.hpp"

namespace trainsim {
namespace {

TEST(HardwarePresets, BaselineIsTheH100OfThePaperModel) {
  // docs/paper-model.md, "Hardware baseline": 989 TFLOP/s, 3.35 TB/s, 80 GB, NVLink 450 GB/s
  // per direction in domains of 8, 400 Gb/s = 50 GB/s per NIC, sustained fraction 0.8.
  const HardwarePreset& h = hardware_preset("h100");
  EXPECT_DOUBLE_EQ(h.gpu.peak.value(), 989e12);
  EXPECT_DOUBLE_EQ(h.gpu.hbm_bandwidth.value(), 3.35e12);
  EXPECT_DOUBLE_EQ(h.gpu.hbm_capacity.value(), 80e9);
  EXPECT_DOUBLE_EQ(h.gpu.matmul_efficiency, 0.8);
  EXPECT_DOUBLE_EQ(h.nvlink_bandwidth.value(), 450e9);
  EXPECT_DOUBLE_EQ(h.network_bandwidth.value(), 50e9);
  EXPECT_EQ(h.nvlink_domain, 8);
  EXPECT_EQ(h.gpu.name, "h100");
}

TEST(HardwarePresets, OlderAndNewerGenerationsOrderAsExpected) {
  const HardwarePreset &a = hardware_preset("a100"), &h = hardware_preset("h100"),
                       &b = hardware_preset("b200");
  EXPECT_LT(a.gpu.peak, h.gpu.peak);
  EXPECT_LT(h.gpu.peak, b.gpu.peak);
  EXPECT_LT(a.network_bandwidth, h.network_bandwidth);
  EXPECT_LT(h.nvlink_bandwidth, b.nvlink_bandwidth);
  EXPECT_EQ(hardware_preset_names(),
            (std::vector<std::string>{"h100", "h200", "a100", "a100-40gb", "b200", "b300",
                                      "gb200", "gb300"}));
  EXPECT_EQ(hardware_preset("gb300").nvlink_domain, 72);
  // Every GPU preset a scenario names is a frontier's GPU too, by either name.
  for (const GpuPreset& g : gpu_presets())
    EXPECT_EQ(hardware_preset(g.name).name, g.alias) << g.name;
}

TEST(HardwarePresets, UnknownNameSuggestsTheClosest) {
  try {
    (void)hardware_preset("a10", "--gpu");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "frontier: --gpu = 'a10': unknown GPU preset; known: h100, h200, "
                           "a100, a100-40gb, b200, b300, gb200, gb300 (did you mean 'a100'?)");
  }
}

TEST(GpuPresets, EveryScenarioPresetHasItsDatasheetFigures) {
  // Dense BF16 peak (half the datasheets' "with sparsity" figure), HBM bandwidth, HBM capacity.
  struct Expected {
    const char* name;
    double peak, bandwidth, capacity;
  };
  for (const Expected& e :
       {Expected{"h100-sxm", 989e12, 3.35e12, 80e9}, Expected{"h200-sxm", 989e12, 4.8e12, 141e9},
        Expected{"a100-sxm-40gb", 312e12, 1.555e12, 40e9},
        Expected{"a100-sxm-80gb", 312e12, 2.039e12, 80e9},
        Expected{"b200", 2.25e15, 7.7e12, 180e9}, Expected{"gb200", 2.5e15, 8e12, 186e9},
        Expected{"b300", 2.25e15, 8e12, 288e9}, Expected{"gb300", 2.5e15, 8e12, 288e9}}) {
    const GpuPreset* g = find_gpu_preset(e.name);
    ASSERT_NE(g, nullptr) << e.name;
    EXPECT_DOUBLE_EQ(g->gpu.peak.value(), e.peak) << e.name;
    EXPECT_DOUBLE_EQ(g->gpu.hbm_bandwidth.value(), e.bandwidth) << e.name;
    EXPECT_DOUBLE_EQ(g->gpu.hbm_capacity.value(), e.capacity) << e.name;
    EXPECT_DOUBLE_EQ(g->gpu.matmul_efficiency, 0.8) << e.name; // the project baseline
    EXPECT_DOUBLE_EQ(g->gpu.kernel_latency.value(), 4e-6) << e.name;
    EXPECT_EQ(g->gpu.name, e.name);
    EXPECT_EQ(g->gpu.preset, e.name);
    EXPECT_FALSE(g->source.empty()) << e.name;
  }
  EXPECT_EQ(gpu_preset_names(),
            (std::vector<std::string>{"h100-sxm", "h200-sxm", "a100-sxm-40gb", "a100-sxm-80gb",
                                      "b200", "b300", "gb200", "gb300"}));
  // The later Blackwell parts' sustained matmul rates are estimates the report names: B300's
  // burst 1769 TFLOP/s x 1456.3 / 1770.9 = 1454.7; GB200's 1822 x 1456.3 / 1770.9 = 1498.4;
  // GB300's 1769 x 2.5 / 2.25 x 1456.3 / 1770.9 = 1616.4.
  EXPECT_NEAR(find_gpu_preset("b300")->gpu.gemm_peak.value(), 1454.7e12, 0.1e12);
  EXPECT_NEAR(find_gpu_preset("gb200")->gpu.gemm_peak.value(), 1498.4e12, 0.1e12);
  EXPECT_NEAR(find_gpu_preset("gb300")->gpu.gemm_peak.value(), 1616.4e12, 0.1e12);
  EXPECT_EQ(find_gpu_preset("gb300")->gpu.estimates.size(), 4u);
}

TEST(GpuPresets, EveryPresetCarriesTheOperatorModelsFigures) {
  // models/hardware_presets.cpp cites each: SMs, the sustained matmul rate (MSMF; A100: MAMF), the
  // FlashAttention-2 causal d_head 128 rate at 2k tokens, the copy bandwidth's fraction.
  struct Expected {
    const char* name;
    int sms;
    double gemm_peak, attention_d128_2k, hbm_efficiency;
  };
  for (const Expected& e : {Expected{"h100-sxm", 132, 708.5e12, 265e12, 2.90 / 3.35},
                            Expected{"h200-sxm", 132, 708.5e12, 265e12, 4.01 / 4.8},
                            Expected{"a100-sxm-40gb", 108, 271.2e12, 155e12, 1.61 / 2.039},
                            Expected{"a100-sxm-80gb", 108, 271.2e12, 155e12, 1.61 / 2.039},
                            Expected{"b200", 148, 1456.3e12, 265e12 * 373.9 / 329.3, 4.01 / 4.8}}) {
    const GpuSpec& g = find_gpu_preset(e.name)->gpu;
    EXPECT_EQ(g.sms, e.sms) << e.name;
    EXPECT_DOUBLE_EQ(g.gemm_peak.value(), e.gemm_peak) << e.name;
    EXPECT_NEAR(g.flash_attention.d128[2].value(), e.attention_d128_2k, 1.0) << e.name;
    EXPECT_NEAR(g.hbm_efficiency, e.hbm_efficiency, 1e-12) << e.name;
    EXPECT_LT(g.gemm_peak, g.peak) << e.name;
    // Longer sequences amortise the causal mask's edge blocks: every row rises.
    for (size_t i = 1; i < 6; ++i)
      EXPECT_GT(g.flash_attention.d64[i], g.flash_attention.d64[i - 1]) << e.name;
  }
}

TEST(GpuPresets, MxScaledGemmsRunAtTheMeasuredFractionOfTensorwise) {
  // Transformer Engine's B300 benchmark: a layer's GEMMs take 7.161 ms in MXFP8 and 6.812 ms
  // with per-tensor current scaling, so an MX GEMM runs at 6.812 / 7.161 = 0.9513 of the
  // tensorwise rate on every Blackwell preset; the report names it an estimate. Hopper has no
  // MX tensor cores, and other recipes keep the FP8 rate.
  const GpuPreset& b200 = *find_gpu_preset("b200");
  GpuSpec tensorwise = *preset_at_precision(b200, "fp8", Fp8Recipe::tensorwise);
  GpuSpec mx = *preset_at_precision(b200, "fp8", Fp8Recipe::mxfp8);
  EXPECT_DOUBLE_EQ(tensorwise.gemm_peak.value(), b200.fp8_gemm_peak.value());
  EXPECT_DOUBLE_EQ(mx.gemm_peak.value(), b200.fp8_gemm_peak.value() * 6.812 / 7.161);
  EXPECT_EQ(mx.estimates.size(), tensorwise.estimates.size() + 1);
  EXPECT_EQ(mx.wide_gemm_peak, tensorwise.wide_gemm_peak); // the LM head stays BF16 alike
  EXPECT_DOUBLE_EQ(find_gpu_preset("h100-sxm")->mxfp8_over_tensorwise, 1.0);
}

TEST(GpuPresets, BlackwellUltraRunsCudnnAttentionsForwardAtItsMeasuredGain) {
  // cuDNN attention at 8k tokens, d_head 128 (models/attention_tables.cpp): the B200's
  // FlashAttention-4 bars, forward F = 1168 and backward B = 1008 TFLOP/s, combined as
  // 3.5 / (1/F + 2.5/B) = 1049.1 TFLOP/s on B200 and GB200. GB300's forward is F x
  // 1875.932 / 1438.125 (cuDNN 9.27's prefill sweep, GB300 over GB200) = 1523.6, its backward
  // the same: 3.5 / (1/1523.6 + 2.5/1008) = 1115.9 TFLOP/s, 6.4% faster.
  auto at_8k = [](const char* name) {
    return find_gpu_preset(name)->gpu.cudnn_attention.d128[4].value() / 1e12;
  };
  double forward = 1168 * 1875.932 / 1438.125;
  EXPECT_NEAR(at_8k("b200"), 3.5 / (1 / 1168.0 + 2.5 / 1008), 1e-6);
  EXPECT_NEAR(at_8k("gb200"), at_8k("b200"), 1e-6);
  EXPECT_NEAR(at_8k("gb300"), 3.5 / (1 / forward + 2.5 / 1008), 1e-6);
  EXPECT_NEAR(at_8k("gb300"), 1115.9, 0.1);
  EXPECT_NE(find_gpu_preset("gb300")->gpu.cudnn_attention.estimate.find("GB300 / GB200"),
            std::string::npos);
}

TEST(GpuPresets, TheFrontierNamesAreAliasesWithTheSameFigures) {
  // `trainsim frontier --gpu h100|a100|b200` must keep its outputs: the same figures.
  for (const char* alias : {"h100", "a100", "b200"}) {
    const GpuPreset* g = find_gpu_preset(alias);
    ASSERT_NE(g, nullptr) << alias;
    const HardwarePreset& h = hardware_preset(alias);
    EXPECT_EQ(h.gpu.peak, g->gpu.peak) << alias;
    EXPECT_EQ(h.gpu.hbm_bandwidth, g->gpu.hbm_bandwidth) << alias;
    EXPECT_EQ(h.gpu.hbm_capacity, g->gpu.hbm_capacity) << alias;
  }
  EXPECT_EQ(find_gpu_preset("a100")->name, "a100-sxm-80gb");
  EXPECT_EQ(find_gpu_preset("h100-pcie"), nullptr);
}

} // namespace
} // namespace trainsim
