// Refuses a simulation that would not fit in this machine's memory before it starts, with one
// line saying what it needs, what there is, and what to change, instead of letting the kernel's
// OOM killer end it minutes later. The per-item costs were measured on the reference scenarios
// (docs/trust.md, "Memory guard").
#pragma once

#include <optional>
#include <string>

#include "models/scenario.hpp"
#include "models/units.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

/// Resident bytes per simulated item, measured on the 1k/4k/16k reference scenarios in fast
/// mode (docs/trust.md, "Memory guard": the probe, the fit and the check against /usr/bin/time).
struct MemoryCosts {
  double per_gpu = 21e3;   ///< actor stack 13.5 KB + SimGrid host 1.2 KB + flows, program, statistics 5.7 KB
  double per_link = 1.6e3; ///< one graph link: two SimGrid links with load tracking 1.45 KB + the graph 0.15 KB
  double per_vertex = 200; ///< one graph vertex (GPU, NVSwitch, NIC, switch) in the topology graph
  double fixed = 40e6;     ///< both processes' baseline: the program, its libraries, SimGrid
};

struct MemoryEstimate {
  Bytes total;
  long gpus = 0;
  long links = 0;
};

/// What `scenario` on `topology` needs in memory, parent and simulation child together.
MemoryEstimate estimate_memory(const Scenario& scenario, const topo::Topology& topology, const MemoryCosts& costs = {});

/// MemAvailable from /proc/meminfo, or nullopt where it cannot be read (then nothing is refused).
std::optional<Bytes> available_memory();

struct GuardParams {
  std::optional<Bytes> available;  ///< injected by tests; default: available_memory()
  double usable_fraction = 0.85;   ///< leave room for the page cache and other programs
  bool force = false;              ///< run anyway; TRAINSIM_FORCE=1 in the environment also sets it
  MemoryCosts costs;
};

/// Throws Error(ExitCode::resources) naming scenario.file when the estimate exceeds the usable
/// part of the available memory, unless forced.
void check_resources(const Scenario& scenario, const topo::Topology& topology, const GuardParams& params = {});

} // namespace trainsim
