// Reads a scenario file strictly: every key known (or rejected with a suggestion), every
// value with its unit, every cross-field rule checked before anything is simulated. Each
// rejection is one InputError line naming the file, the key and the value. A scenario that
// would not fit in memory is refused (Error, ExitCode::resources) before anything is built.
#pragma once

#include <memory>
#include <string>

#include "models/scenario.hpp"
#include "tools/study/resource_guard.hpp"
#include "tools/study/scenario_build.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

struct LoadOptions {
  /// What the caller will hold in memory; the memory guard prices it from the parameters and
  /// refuses before the topology is built (tools/study/resource_guard.hpp).
  Footprint footprint = Footprint::simulation;
  GuardParams guard;
  /// Price a plan whose weights, gradients, optimizer state and activations exceed the GPU's
  /// memory (`--force-memory`), with a warning, instead of refusing it.
  bool force_memory = false;
};

/// build_unguarded() with the machine guard: refuses what would not fit this machine's
/// memory (tools/study/resource_guard.hpp) before the topology is built. Scenarios made in code
/// (validation, the frontier, tests) come in here; a file comes in through load_scenario().
LoadedScenario build_scenario(Scenario scenario, const LoadOptions& options = {});

/// Reads the file, parses it (ScenarioTree) and builds it (build_scenario).
LoadedScenario load_scenario(const std::string& path, const LoadOptions& options = {});

/// Same as load_scenario, from text already in memory (`file` names it in messages).
LoadedScenario parse_scenario(const std::string& text, const std::string& file,
                              const LoadOptions& options = {});

/// A scenario file's parsed YAML tree, which `sweep --set` edits key by key before it is read:
/// overrides change the tree, never the text. Copies are independent.
class ScenarioTree {
public:
  static ScenarioTree parse(const std::string& text, const std::string& file);
  /// Sets the dotted key ("execution.dp") to `value`, read as YAML ("4", "400Gbps", "[1, 2]"),
  /// creating the sections it names. InputError when the path runs through a value.
  void set(const std::string& dotted_key, const std::string& value);
  /// The tree as YAML text (what a variant's provenance hash is computed from).
  [[nodiscard]] std::string text() const;
  [[nodiscard]] Scenario read() const;
  [[nodiscard]] LoadedScenario load(const LoadOptions& options = {}) const;

private:
  struct Tree;
  std::shared_ptr<const Tree> tree_; // copy on write: set() clones it first
  std::string file_;
  std::string hash_; ///< of the text the tree was parsed from, until the first set()
};

} // namespace trainsim
