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
};

/// Simulates one step of `scenario` on `topology`, which must have at least
/// scenario.execution.gpus() GPUs. Throws trainsim::Error (ExitCode::simulation) if the
/// simulation cannot complete.
SimResult simulate(const Scenario& scenario, const topo::Topology& topology,
                   const SimOptions& options = {});

class Platform;

/// Runs `body` in a child process that owns a fresh SimGrid engine, configured as for a
/// simulation, with `topology` as its platform; returns the bytes `body` returned. `body`
/// creates actors and calls simgrid::s4u::Engine::get_instance()->run(). A trainsim::Error
/// thrown in the child is rethrown here; a child that dies becomes an Error(simulation).
std::string run_isolated(const topo::Topology& topology, const GpuSpec& gpu,
                         const std::function<std::string(Platform&)>& body);

} // namespace trainsim::sim
