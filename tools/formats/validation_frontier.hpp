// Section 5 of the validation report: the frontier's chosen plans replayed, each against the
// closed form with the difference broken down by cause (gap_causes()).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tools/study/validation.hpp"

namespace trainsim {

std::string frontier_section(const ValidationReport& report);
/// Finding 7: how far the replays fall below the closed form; "" without frontier points.
std::string frontier_finding(const ValidationReport& report);
nlohmann::ordered_json frontier_json(const ValidationReport& report);

} // namespace trainsim
