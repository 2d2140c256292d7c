// Helpers shared by the validation sections: scenario text built from a few parameters, and
// one simulation measured against its bound.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "models/closed_form.hpp"
#include "sim/simulation.hpp"
#include "tools/formats/report.hpp"
#include "tools/study/evaluate.hpp"
#include "tools/io/scenario_loader.hpp"

namespace trainsim::validation {

/// The parts of a scenario the suite varies; render() writes the YAML that parse_scenario reads.
struct ScenarioSpec {
  std::string description = "validation case";
  std::string model = "kind: mlp\n  layers: 8\n  d_model: 4096\n  d_ff: 16384\n  seq_len: 2048\n";
  std::string gpu;      ///< extra system.gpu lines, e.g. "matmul_efficiency: 0.8\n"
  std::string topology; ///< the system.topology lines after "generator"
  std::string execution;
  [[nodiscard]] std::string render() const;
};

/// A fat-tree whose nodes all hang off one leaf: every GPU has its own NIC and the leaf is a
/// crossbar, so flows between distinct GPU pairs never share a link.
std::string one_leaf_fat_tree(int nodes, int gpus_per_node);

using Measured = Evaluation;

/// Simulates one step; `link_stats` records the bytes per link that blame() names (it does not
/// change the step, and costs about a third more time on a large run).
Measured measure(const LoadedScenario& loaded, sim::Fidelity fidelity = sim::Fidelity::fast, bool link_stats = true);

/// What `parse` loads, or nullopt when the loader's rules reject it (an InputError: the random
/// generator proposes, the loader decides). Anything else thrown is a bug, in the generator's
/// text or the loader, and propagates: counted as a rejection it would vanish from the report.
std::optional<LoadedScenario> accepted(const std::function<LoadedScenario()>& parse);

/// Where the time above the bound went: the largest non-compute category of the breakdown
/// (the phase) and the most utilised link direction with its tier.
std::string blame(const Measured& m);

} // namespace trainsim::validation
