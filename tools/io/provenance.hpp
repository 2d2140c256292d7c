// What was simulated, recorded with every result: the scenario as resolved (every key of its
// three parts, defaults filled in), the GPU preset and the topology generator with its
// parameters, the trainsim version, and a hash of the input text. result.json, the text
// report, the HTML report and compare all take it from here.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "models/scenario.hpp"

namespace trainsim {

/// "fnv1a64:" and 16 hex digits of the 64-bit FNV-1a hash of `text`: which input a result
/// came from (not a security hash).
std::string input_hash(std::string_view text);

/// {"trainsim": version, "input": {file, hash}, "gpu_preset", "topology": generator,
///  "scenario": {model, system: {gpu, topology}, execution}}, every value resolved.
nlohmann::ordered_json provenance_json(const Scenario& scenario);

/// "h100-sxm on fat-tree (nodes 8, gpus_per_node 8, ...)" and the like: one line for reports.
std::string hardware_line(const Scenario& scenario);

/// "trainsim 0.1.0, input fnv1a64:..." for reports.
std::string origin_line(const Scenario& scenario);

} // namespace trainsim
