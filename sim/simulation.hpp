// Runs one simulated training step. SimGrid 3.32 allows one engine per process, so
// simulate() runs the engine in a child process and returns its result: callers (the CLI,
// tests, sweeps, validation) may simulate as many scenarios as they like.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/scenario.hpp"
#include "sim/collectives.hpp"
#include "sim/stats.hpp"
#include "topologies/topology.hpp"

namespace trainsim::sim {

struct SimOptions {
  Fidelity fidelity = Fidelity::fast;
  bool progress = false;          ///< a progress line with an ETA on stderr after a few seconds
  bool link_stats = true;         ///< record the bytes each link direction carries
  std::vector<int> trace_ranks{}; ///< ranks whose every op is recorded as a TraceEvent
  /// Fast mode on a rail-symmetric fabric with one TP group per node runs one rail for all the
  /// rails (docs/fast-mode.md, "Rail bundling"); false simulates every rail's flows.
  bool bundle_rails = true;
  /// Fast mode runs DP replica 0 for all the replicas (docs/fast-mode.md, "Replica
  /// folding"); simulate() throws Error(ExitCode::input) where the step does not allow it.
  bool bundle_replicas = false;
  /// false: every link a fat pipe, each flow at the link's whole bandwidth, so that no flow
  /// slows another (validate's fast-vs-fine check of the folds themselves, without contention).
  bool shared_links = true;
  /// Follow the step's critical path (sim/critical_path.hpp) into SimResult::critical_path.
  bool critical_path = false;
};

/// Simulates one step of `scenario` on `topology`, which must have at least
/// scenario.execution.gpus() GPUs. Throws trainsim::Error (ExitCode::simulation) if the
/// simulation cannot complete.
SimResult simulate(const Scenario& scenario, const topo::Topology& topology,
                   const SimOptions& options = {});

class Platform;
struct RailBundle;

/// Runs `body` in a child process that owns a fresh SimGrid engine, configured as for a
/// simulation, with `topology` as its platform; returns the bytes `body` returned. `body`
/// creates actors and calls simgrid::s4u::Engine::get_instance()->run(). A trainsim::Error
/// thrown in the child is rethrown here; a child that dies becomes an Error(simulation).
std::string run_isolated(const topo::Topology& topology, const GpuSpec& gpu,
                         const std::function<std::string(Platform&)>& body,
                         const RailBundle* bundle = nullptr, bool shared_links = true);

/// The GPUs of a node that turn onto one another, a leader's traffic standing for theirs: the
/// GPUs per node when `options` allow it and the step is symmetric under turning each node's
/// GPUs (a rail-symmetric fabric, one TP block per node or a node that is one group of 2-D
/// TP's second axis, ring TP collectives, fast mode, no failed link); 1 otherwise, and where a
/// degraded link breaks the turn for every rail. A degraded link of one rail leaves the others
/// bundled: its rail runs its own flows (sim/rail_bundle.hpp: RailBundle).
int rail_bundle(const Scenario& scenario, const topo::Topology& topology,
                const SimOptions& options);

/// How many of a node's rails run on their own beside rail_bundle()'s leader: those a degraded
/// link of theirs broke the turn for; 0 when every rail is bundled, or none is.
int own_rails(const Scenario& scenario, const topo::Topology& topology, const SimOptions& options);

/// The DP replicas that replica 0's GPUs run the step for: the scenario's weight replicas when
/// `options` ask to fold them (sim/replica_bundle.hpp), 1 when they do not or there is one.
/// Throws Error(ExitCode::input), naming `--bundle-replicas` and what stops it, where the step
/// does not allow it.
int replica_bundle(const Scenario& scenario, const topo::Topology& topology,
                 const SimOptions& options);

/// rail_bundle()'s answer in fast mode, from the scenario alone: the one decision, which the
/// memory guard and validate take before the topology is built and the simulator after (it
/// checks that the built router agrees). The Clos generators' router decides rail symmetry
/// from their parameters alone (topo::fat_tree_rail_symmetric), the other fabrics have none.
int rail_bundle(const Scenario& scenario);

} // namespace trainsim::sim
