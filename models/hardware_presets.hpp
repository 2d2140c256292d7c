// Named GPUs and GPU + fabric presets from public datasheets. A scenario's `system.gpu` names
// a GPU preset (`gpu: a100-sxm-80gb`) and may override any of its figures; the frontier model
// starts from a hardware preset (`--gpu h100`), every field overridable by a knob.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/scenario.hpp"

namespace trainsim {

/// One GPU model: its figures (GpuSpec, whose `name` and `preset` are the preset's name) and
/// where they come from.
struct GpuPreset {
  std::string name;   ///< as written in a scenario, e.g. "a100-sxm-80gb"
  std::string alias;  ///< the short name the frontier uses ("a100"), or ""
  std::string source; ///< one line: the datasheet each figure comes from
  GpuSpec gpu;
};

/// Every GPU preset, in a stable order (the H100 SXM, the project baseline, first).
const std::vector<GpuPreset>& gpu_presets();

/// The preset called `name` (or its alias); nullptr when there is none.
const GpuPreset* find_gpu_preset(std::string_view name);

/// The preset names, in order, as a scenario writes them.
std::vector<std::string> gpu_preset_names();

struct HardwarePreset {
  std::string name;
  std::string description;                ///< one line with the sources of the figures
  GpuSpec gpu;                            ///< peak, sustained fraction, HBM, kernel latency
  int nvlink_domain = 8;                  ///< GPUs per NVLink/NVSwitch domain
  BytesPerSecond nvlink_bandwidth{450e9}; ///< per GPU per direction
  BytesPerSecond network_bandwidth{50e9}; ///< per GPU NIC per direction
};

/// The preset called `name`; throws InputError naming `key` and suggesting a known name.
const HardwarePreset& hardware_preset(std::string_view name, std::string_view key = "gpu");

/// All preset names, in registry order (h100 first: the baseline).
std::vector<std::string> hardware_preset_names();

} // namespace trainsim
