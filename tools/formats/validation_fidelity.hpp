// Section 6 of the validation report: fast mode against fine mode on the same scenarios, with
// links shared and with every link a fat pipe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tools/study/validation.hpp"

namespace trainsim {

/// The worst |fast / fine - 1| over the section's checks, links shared (`shared`) or not.
double worst_fidelity_error(const ValidationReport& report, bool shared);
std::string fidelity_section(const ValidationReport& report);
nlohmann::ordered_json fidelity_json(const ValidationReport& report);

} // namespace trainsim
