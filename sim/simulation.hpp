// Runs one simulated training step. SimGrid 3.32 allows one engine per process, so
// simulate() runs the engine in a child process and returns its result: callers (the CLI,
// tests, sweeps, validation) may simulate as many scenarios as they like.
#pragma once

#include "models/scenario.hpp"
#include "sim/collectives.hpp"
#include "sim/stats.hpp"
#include "topologies/topology.hpp"

namespace trainsim::sim {

struct SimOptions {
  Fidelity fidelity = Fidelity::fast;
};

/// Simulates one step of `scenario` on `topology`, which must have at least
/// scenario.execution.gpus() GPUs. Throws trainsim::Error (ExitCode::simulation) if the
/// simulation cannot complete.
SimResult simulate(const Scenario& scenario, const topo::Topology& topology, const SimOptions& options = {});

} // namespace trainsim::sim
