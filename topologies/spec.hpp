// A scenario's `system.topology` section becomes a TopologySpec (models/topology_spec.hpp)
// here, once: the section's text is read by parse_topology() and by nothing after it.
// Counting, building and listing the keys all take the typed spec, so a spec made in code
// from a parameter struct (tests, validation, the benchmark) goes through the same checks.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/params.hpp"
#include "models/topology_spec.hpp"
#include "topologies/build.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

/// Reads the section strictly: "generator" (an unknown one is rejected with a suggestion),
/// then that generator's keys with their units, ranges and defaults; unknown keys are rejected
/// with a suggestion, then the rules across keys (ports, radix, divisibility, size limits) are
/// checked. Every problem is an InputError naming the section's file, the key and its value.
TopologySpec parse_topology(const Params& section);

/// The GPUs, vertices and links `spec` describes, counted without building the graph, so that
/// a caller can refuse a mismatch or what would not fit in memory before a large fabric
/// allocates. None for an imported file, known only once it is read. Throws InputError
/// naming the struct (e.g. "FatTreeParams: nodes = ''") for values a scenario cannot give.
std::optional<TopologySize> topology_size(const TopologySpec& spec);

/// Builds the graph `spec` describes, after the same checks as topology_size().
Topology build_topology(const TopologySpec& spec);

/// One key of a topology section as resolved: given in the file or left at its default.
struct TopologySetting {
  std::string key; ///< as the scenario file names it
  /// The value as written when given (spec.given), else the default's text: a number with its
  /// unit in SI base units ("5e+10Bps"). Either parses back to the same value.
  std::string text;
  /// The value when it is a link figure (plausibility warnings, reports in human units).
  std::variant<std::monostate, Seconds, BytesPerSecond> quantity;
  bool given = false; ///< the section set it
};

/// "generator" and every key of its generator with its value, in the order the generator
/// reads them. An imported file's gpus_per_node is absent while it is left to inference.
std::vector<TopologySetting> topology_settings(const TopologySpec& spec);

} // namespace trainsim::topo
