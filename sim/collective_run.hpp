// One collective alone on a fabric, in a simulation of its own: what validation's
// collective section and the collective tests measure, without driving SimGrid themselves.
#pragma once

#include <string>

#include "models/layout.hpp"
#include "sim/collectives.hpp"
#include "topologies/topology.hpp"

namespace trainsim::sim {

struct CollectiveCall {
  std::string algorithm = "ring"; ///< a name of collective_names()
  CollectiveOp op = CollectiveOp::all_reduce;
  Bytes bytes; ///< per rank, as CollectiveAlgorithm::run() takes it
  Fidelity fidelity = Fidelity::fast;
  GroupSpan group; ///< the members, each on its own GPU (rank = host)
  int count = 1;   ///< run_repeated()'s count: back-to-back calls
  /// How many members (the first ones) call it; the others never arrive, which deadlocks the
  /// collective (the deadlock report's tests). -1: all of them.
  int callers = -1;
  std::string channel = "collective"; ///< the group's mailbox channel, named in deadlock reports
  const CollectiveEfficiency* nvlink = nullptr; ///< NCCL's efficiency over NVLink (none: 1)
  bool in_rounds = false; ///< CollectiveEnv::in_rounds (fast mode keeps some of a ring's rounds)
  ExpertRouting routing{}; ///< CollectiveEnv::routing (an all-to-all's bytes per pair)
};

struct CollectiveOutcome {
  Seconds finish;   ///< when the last member returned
  long comms = 0;   ///< SimGrid communications the call used
  int returned = 0; ///< members that returned
};

/// Simulates `call` on `topology` (in a child process, like every simulation); throws
/// Error(ExitCode::simulation) naming who waits on what if it deadlocks.
CollectiveOutcome simulate_collective(const topo::Topology& topology, const CollectiveCall& call);

} // namespace trainsim::sim
