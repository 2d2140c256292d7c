// A Scenario value as the scenario file the loader reads back to the same value: every key of
// model, system and execution written out (docs/scenario-format.md), quantities with their
// units. `trainsim frontier --scenarios` writes its points with it. The reverse of
// tools/io/scenario_loader; nothing else writes scenario files.
#pragma once

#include <string>

#include "models/scenario.hpp"

namespace trainsim {

/// The YAML text, led by `comment` (each line prefixed "# "). The GPU is its preset and the
/// figures that differ from the preset's (or every figure, without one); the topology, its
/// generator and every key. Throws Error(internal) for a value no key expresses (a GPU's
/// attention table or NCCL curve other than its preset's, optimizer_bytes_per_param other than
/// 12): such a scenario was made in code and has no file form.
std::string scenario_yaml(const Scenario& scenario, const std::string& comment = "");

} // namespace trainsim
