// Named GPU + fabric presets from public datasheets, selected by name (`--gpu h100`). The
// frontier model starts from one; every field stays overridable by a knob.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/scenario.hpp"

namespace trainsim {

struct HardwarePreset {
  std::string name;
  std::string description;              ///< one line with the sources of the figures
  GpuSpec gpu;                          ///< peak, sustained fraction, HBM, kernel latency
  int nvlink_domain = 8;                ///< GPUs per NVLink/NVSwitch domain
  BytesPerSecond nvlink_bandwidth{450e9};  ///< per GPU per direction
  BytesPerSecond network_bandwidth{50e9};  ///< per GPU NIC per direction
};

/// The preset called `name`; throws InputError naming `key` and suggesting a known name.
const HardwarePreset& hardware_preset(std::string_view name, std::string_view key = "gpu");

/// All preset names, in registry order (h100 first: the baseline).
std::vector<std::string> hardware_preset_names();

} // namespace trainsim
