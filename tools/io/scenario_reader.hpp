// The loader's two halves as tools/io sees them: YAML text to a tree, and a tree to a
// Scenario value. Only tools/io includes this (it exposes yaml-cpp); everyone else loads
// through scenario_loader.hpp.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "models/scenario.hpp"

namespace trainsim {

/// The YAML tree of `text`; InputError naming `file` and the line for bad YAML or an empty file.
YAML::Node parse_yaml(const std::string& text, const std::string& file);

/// Reads the tree strictly into a Scenario: every key known (or rejected with a suggestion),
/// every value with its unit. Only parses: the rules across keys are check_scenario()'s
/// (models/scenario_rules.hpp), which build_scenario() runs.
Scenario read_scenario(const YAML::Node& root, const std::string& file);

} // namespace trainsim
