// The validation suite's results as markdown (docs/validation.md), JSON, and a verdict per
// acceptance criterion.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/study/validation.hpp"

namespace trainsim {

std::string validation_markdown(const ValidationReport& report, const std::string& command);
nlohmann::ordered_json validation_json(const ValidationReport& report);

/// One acceptance criterion and how this run fared: "exact cases within 2% ...", worst +0.53%.
struct Verdict {
  std::string criterion;
  bool pass = false;
  std::string figure;
};
std::vector<Verdict> verdicts(const ValidationReport& report);

} // namespace trainsim
