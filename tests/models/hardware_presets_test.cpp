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
  const HardwarePreset &a = hardware_preset("a100"), &h = hardware_preset("h100"), &b = hardware_preset("b200");
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
    EXPECT_STREQ(e.what(),
                 "trainsim frontier: --gpu = 'a10': unknown GPU preset; known: h100, a100, b200 (did you mean 'a100'?)");
  }
}

} // namespace
} // namespace trainsim
