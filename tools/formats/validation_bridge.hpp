// The validation report's section on Megatron-Bridge's published tables (section 4b of
// docs/validation.md): markdown, JSON and the dense rows' verdict.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tools/study/validation.hpp"

namespace trainsim {

std::string bridge_section(const ValidationReport& report);
nlohmann::ordered_json bridge_json(const ValidationReport& report);

/// The verdict's criterion over the dense rows: mean absolute error at most 10%, none over 20%.
inline constexpr double kBridgeMeanError = 0.10, kBridgeWorstError = 0.20;

} // namespace trainsim
