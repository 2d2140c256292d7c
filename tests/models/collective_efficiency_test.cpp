// NCCL's efficiency over NVLink (models/scenario.hpp: CollectiveEfficiency): the curve's
// interpolation, the presets' figures against their source (Azure/AI-benchmarking-guide's
// nccl-tests all-reduce tables, cited in models/hardware_presets.cpp), and the bound's ring
// pricing with it.
#include "models/collective_cost.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "models/hardware_presets.hpp"
#include "models/step_compute.hpp"

namespace trainsim {
namespace {

constexpr double MiB = 1024.0 * 1024.0;

// Two points: half the bandwidth for steps of 1 MiB, all of it from 4 MiB.
CollectiveEfficiency two_points() {
  return {{{Bytes(1 * MiB), 0.5}, {Bytes(4 * MiB), 1.0}}};
}

TEST(CollectiveEfficiency, InterpolatesInLogSizeAndHoldsAtTheEnds) {
  CollectiveEfficiency c = two_points();
  // 2 MiB is half-way from 1 to 4 MiB in log2: 0.5 + 0.5 x 0.5 = 0.75.
  EXPECT_DOUBLE_EQ(c.at(Bytes(2 * MiB)), 0.75);
  EXPECT_DOUBLE_EQ(c.at(Bytes(1 * MiB)), 0.5);
  EXPECT_DOUBLE_EQ(c.at(Bytes(1024)), 0.5);      // below: held
  EXPECT_DOUBLE_EQ(c.at(Bytes(64 * MiB)), 1.0);  // above: held
  EXPECT_DOUBLE_EQ(CollectiveEfficiency{}.at(Bytes(1024)), 1.0); // none: full bandwidth
}

TEST(CollectiveEfficiency, PresetsCarryTheirNcclTestsTables) {
  // A100 (ND A100 v4): all-reduce of 16 MiB over 8 GPUs, 2 MiB per ring step, 109.22 GB/s of
  // the 8 GiB figure 231.58; 64 MiB (8 MiB per step): 166.63 / 231.58. Between 16 and 32 MiB
  // (132.77), 24 MiB is log2(1.5) = 0.585 of the way: (109.22 + 0.585 x 23.55) / 231.58.
  const CollectiveEfficiency& a100 = find_gpu_preset("a100-sxm-80gb")->gpu.nvlink_collectives;
  EXPECT_NEAR(a100.at(Bytes(2 * MiB)), 109.22 / 231.58, 1e-12);
  EXPECT_NEAR(a100.at(Bytes(8 * MiB)), 166.63 / 231.58, 1e-12);
  EXPECT_NEAR(a100.at(Bytes(3 * MiB)), (109.22 + std::log2(1.5) * (132.77 - 109.22)) / 231.58,
              1e-12);
  EXPECT_DOUBLE_EQ(a100.at(Bytes(1024 * MiB)), 1.0); // 8 GiB over 8
  // The 40 GB part has the same NVLink 3 and NVSwitch.
  EXPECT_EQ(find_gpu_preset("a100-sxm-40gb")->gpu.nvlink_collectives.points.size(), 14u);
  // H100 (ND H100 v5, NVLS): 256 MiB, 32 MiB per step: 423.38 / 478.87; H200 its own table.
  EXPECT_NEAR(find_gpu_preset("h100-sxm")->gpu.nvlink_collectives.at(Bytes(32 * MiB)),
              423.38 / 478.87, 1e-12);
  EXPECT_NEAR(find_gpu_preset("h200-sxm")->gpu.nvlink_collectives.at(Bytes(32 * MiB)),
              432.24 / 479.98, 1e-12);
  EXPECT_FALSE(find_gpu_preset("b200")->gpu.nvlink_collectives.known()); // none published
}

TEST(CollectiveEfficiency, TheBoundSlowsRingsOverNvlinkOnly) {
  // An all-reduce of 8 MiB over 4 ranks: 2 x 3 steps of 2 MiB, each 1 us + 2 MiB / 450 GB/s at
  // full bandwidth; at 0.75 of it (2 MiB per step) the transfer takes 1 / 0.75 as long.
  CollectiveEfficiency c = two_points();
  GroupTiers nvlink;
  nvlink.ring = {Seconds(1e-6), BytesPerSecond(450e9), "nvlink"};
  CollectiveCost plain = collective_cost("ring", 2, Bytes(8 * MiB), 4, nvlink);
  CollectiveCost nccl = collective_cost("ring", 2, Bytes(8 * MiB), 4, nvlink, &c);
  EXPECT_DOUBLE_EQ(plain.transfer.value(), 6 * 2 * MiB / 450e9);
  EXPECT_DOUBLE_EQ(nccl.transfer.value(), 6 * 2 * MiB / 450e9 / 0.75);
  EXPECT_DOUBLE_EQ(nccl.latency.value(), 6e-6);
  // Over the network the curve does not apply (it was measured inside one NVSwitch node).
  GroupTiers leaf;
  leaf.ring = {Seconds(2e-6), BytesPerSecond(50e9), "leaf"};
  EXPECT_DOUBLE_EQ(collective_cost("ring", 2, Bytes(8 * MiB), 4, leaf, &c).transfer.value(),
                   6 * 2 * MiB / 50e9);
}

TEST(CollectiveEfficiency, OnlyThePerOperatorPathUsesIt) {
  // The paper's MLP blocks keep plain alpha-beta collectives, so the frontier does not move.
  Scenario s;
  s.system.gpu = find_gpu_preset("a100-sxm-80gb")->gpu;
  EXPECT_EQ(collective_efficiency(s), &s.system.gpu.nvlink_collectives);
  s.model.kind = ModelKind::mlp;
  EXPECT_EQ(collective_efficiency(s), nullptr);
  s.model.kind = ModelKind::transformer;
  s.model.compute = ComputeModel::roofline;
  EXPECT_EQ(collective_efficiency(s), nullptr);
  s.model.compute = ComputeModel::operators;
  s.system.gpu = GpuSpec{}; // given in code: no curve
  EXPECT_EQ(collective_efficiency(s), nullptr);
}

} // namespace
} // namespace trainsim
