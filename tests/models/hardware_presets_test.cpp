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
  EXPECT_EQ(hardware_preset_names(), (std::vector<std::string>{"h100", "a100", "b200"}));
}

TEST(HardwarePresets, UnknownNameSuggestsTheClosest) {
  try {
    (void)hardware_preset("a10", "--gpu");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "trainsim frontier: --gpu = 'a10': unknown GPU preset; known: h100, "
                           "a100, b200 (did you mean 'a100'?)");
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
        Expected{"b200", 2.25e15, 7.7e12, 180e9}}) {
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
  EXPECT_EQ(gpu_preset_names(), (std::vector<std::string>{"h100-sxm", "h200-sxm", "a100-sxm-40gb",
                                                          "a100-sxm-80gb", "b200"}));
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
