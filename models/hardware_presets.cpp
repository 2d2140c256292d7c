#include "models/hardware_presets.hpp"

#include <array>

#include "models/error.hpp"

namespace trainsim {
namespace {

HardwarePreset make(std::string name, std::string description, GpuSpec gpu, BytesPerSecond nvlink,
                    BytesPerSecond nic) {
  gpu.name = name;
  return {std::move(name), std::move(description), gpu, 8, nvlink, nic};
}

// Dense BF16 peak without sparsity; bandwidths per direction (NVLink totals are quoted
// bidirectional, so halved). Sustained fraction 0.8 and 4 us kernel latency for all: the
// project baseline (docs/closed-form.md).
const std::array<HardwarePreset, 3>& registry() {
  static const std::array<HardwarePreset, 3> presets = {
      make("h100", "H100 SXM: 989 TFLOP/s BF16, 80 GB HBM3 at 3.35 TB/s, NVLink 4 900 GB/s, NDR 400 Gb/s",
           GpuSpec{"", FlopPerSecond(989e12), 0.8, BytesPerSecond(3.35e12), Bytes(80e9), Seconds(4e-6)},
           BytesPerSecond(450e9), BytesPerSecond(50e9)),
      make("a100", "A100 SXM 80GB: 312 TFLOP/s BF16, 2.04 TB/s HBM2e, NVLink 3 600 GB/s, HDR 200 Gb/s",
           GpuSpec{"", FlopPerSecond(312e12), 0.8, BytesPerSecond(2.039e12), Bytes(80e9), Seconds(4e-6)},
           BytesPerSecond(300e9), BytesPerSecond(25e9)),
      make("b200", "B200 (HGX): 2.25 PFLOP/s BF16, 180 GB HBM3e at 7.7 TB/s, NVLink 5 1.8 TB/s, XDR 800 Gb/s",
           GpuSpec{"", FlopPerSecond(2.25e15), 0.8, BytesPerSecond(7.7e12), Bytes(180e9), Seconds(4e-6)},
           BytesPerSecond(900e9), BytesPerSecond(100e9)),
  };
  return presets;
}

} // namespace

const HardwarePreset& hardware_preset(std::string_view name, std::string_view key) {
  for (const HardwarePreset& p : registry())
    if (p.name == name) return p;
  throw InputError("trainsim frontier", key, name,
                   "unknown GPU preset; known: h100, a100, b200" + did_you_mean(name, hardware_preset_names()));
}

std::vector<std::string> hardware_preset_names() {
  std::vector<std::string> names;
  for (const HardwarePreset& p : registry()) names.push_back(p.name);
  return names;
}

} // namespace trainsim
