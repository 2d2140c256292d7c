// Edits of a scenario's text and the loader's verdict on it, for the tests whose subject is
// the loader itself (everyone else builds Scenario values).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "models/error.hpp"
#include "tools/io/scenario_loader.hpp"

namespace trainsim::testing {

/// `text` with the first `from` replaced by `to`; a test failure when `from` is not there.
inline std::string with(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

/// The loader's one-line rejection of `text` (as file "s.yaml"), or "accepted".
inline std::string error_of(const std::string& text) {
  try {
    (void)parse_scenario(text, "s.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

} // namespace trainsim::testing
