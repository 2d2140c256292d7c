// Refuses a command that would not fit in this machine's memory before it allocates, with one
// line saying what it needs, what there is, and what to change, instead of a std::bad_alloc or
// the kernel's OOM killer minutes later. The estimate comes from the scenario's parameters
// (the topology is counted, not built), so even a 10-million-GPU fabric is refused at once.
// The per-item costs were measured (docs/trust.md, "Memory guard").
#pragma once

#include <optional>
#include <string>

#include "models/scenario.hpp"
#include "models/units.hpp"
#include "topologies/build.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

/// What a command holds in memory.
enum class Footprint {
  graph,      ///< the topology graph (topo describe)
  exported,   ///< the graph and its text, held twice while written (topo export)
  bound,      ///< the graph and the pipeline schedule's longest path (bounds)
  simulation, ///< all of that, SimGrid's platform, one actor per GPU and their programs (run,
              ///< compare, sweep)
};

/// Resident bytes per item, measured on the reference scenarios in fast mode and on
/// 1M- and 10M-GPU graphs (docs/trust.md, "Memory guard": the probes, the fits and the checks
/// against /usr/bin/time).
struct MemoryCosts {
  double per_gpu =
      21e3; ///< actor stack 13.5 KB + SimGrid host 1.2 KB + flows, program, statistics 5.7 KB
  double per_link =
      1.6e3; ///< in a simulation: two SimGrid links with load tracking 1.45 KB + the graph's
  double per_graph_link =
      170; ///< one link of the graph alone (edge, two adjacency entries, growth slack)
  double per_vertex = 60; ///< one graph vertex (GPU, NVSwitch, NIC, switch)
  double fixed = 40e6;    ///< both processes' baseline: the program, its libraries, SimGrid
  /// `topo export` text per link and per vertex; these are GraphML's, the widest format
  /// (export_costs() gives each format's).
  double per_export_link = 180;
  double per_export_vertex = 85;
  /// Address space reserved per GPU actor: the 1 MiB context stack sim/platform sets. Mapped
  /// lazily, so it costs nothing resident, but `ulimit -v` counts it.
  double stack_reserve = 1024.0 * 1024;
  /// With rail bundling (sim::rail_bundle: fast mode, rail-symmetric fabric) a node's other
  /// GPUs only join its GPU 0, and the platform holds the SimGrid links of one rail in g
  /// (per_link then is per_graph_link plus 1/g of the rest): measured 17.3 KB per GPU in all,
  /// links included, on the 100k and 1M reference steps (docs/performance.md).
  double per_gpu_bundled = 15.5e3;
  /// Whether the run may bundle rails: false for fine mode and `--unbundled`.
  bool rail_bundling = true;
  /// Rails that run on their own beside a bundled node's leader (sim::own_rails: a degraded
  /// link of theirs): each adds 1/g of the GPUs as full actors (per_gpu) and 1/g of the links
  /// as SimGrid links. Measured at 100k with one: 1.88 GB against 1.72 (docs/faults.md).
  int own_rails = 0;
};

struct MemoryEstimate {
  Bytes total;         ///< resident
  Bytes address_space; ///< total plus reserved, never touched mappings (actor stacks)
  Bytes program;       ///< of which the pipeline schedule and the GPUs' programs
  long gpus = 0;
  long links = 0;
  long vertices = 0;
  long microbatches = 0; ///< per pipeline
};

/// The default costs with the export text of `format` (dot, graphml, json).
MemoryCosts export_costs(const std::string& format);

/// What `scenario` on a topology of `size` needs for `footprint`, parent and simulation child
/// together.
MemoryEstimate estimate_memory(const Scenario& scenario, const topo::TopologySize& size,
                               Footprint footprint = Footprint::simulation,
                               const MemoryCosts& costs = {});
/// The same for a built topology.
MemoryEstimate estimate_memory(const Scenario& scenario, const topo::Topology& topology,
                               const MemoryCosts& costs = {});

/// MemAvailable from /proc/meminfo, or nullopt where it cannot be read.
std::optional<Bytes> available_memory();
/// What `ulimit -v` (RLIMIT_AS) leaves of this process's address space, or nullopt when unlimited.
std::optional<Bytes> address_space_left();

struct GuardParams {
  /// Injected by tests, and then the machine is not read at all: resident memory available
  /// and address space left (nullopt: no limit). Default: available_memory() and
  /// address_space_left().
  std::optional<Bytes> available;
  std::optional<Bytes> address_space;
  double usable_fraction =
      0.85;           ///< leave room for the page cache, other programs, estimation error
  bool force = false; ///< run anyway; TRAINSIM_FORCE=1 in the environment also sets it
  MemoryCosts costs;
};

/// Throws Error(ExitCode::resources) naming scenario.file when the estimate for `footprint`
/// exceeds the usable part of the available memory or address space, unless forced.
void check_resources(const Scenario& scenario, const topo::TopologySize& size, Footprint footprint,
                     const GuardParams& params = {});
/// The same for a simulation on a built topology.
void check_resources(const Scenario& scenario, const topo::Topology& topology,
                     const GuardParams& params = {});

} // namespace trainsim
