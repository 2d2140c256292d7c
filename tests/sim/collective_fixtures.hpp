// What the collective tests share: small fat trees, one collective over a group of them, and
// both fidelities checked against a time worked out by hand.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "sim/collective_run.hpp"
#include "topologies/fat_tree.hpp"

namespace trainsim::sim::testing {

constexpr double KiB = 1024.0, MiB = 1024.0 * KiB;

/// `nodes` nodes of `gpus_per_node` GPUs on the fat tree's defaults.
inline topo::Topology fat_tree(int nodes, int gpus_per_node) {
  topo::FatTreeParams p;
  p.nodes = nodes;
  p.gpus_per_node = gpus_per_node;
  return topo::build_fat_tree(p);
}

struct Outcome {
  double seconds = 0; ///< when the last member returned
  long comms = 0;
  int returned = 0; ///< members that returned (all of them unless the collective deadlocked)
};

struct Call {
  int base = 0;
  int stride = 1;
  int count = 1; ///< run_repeated's count (1: run)
  bool in_rounds = false; ///< CollectiveEnv::in_rounds
  ExpertRouting routing{}; ///< CollectiveEnv::routing
};

/// Every member of the group base + i * stride (i < size) calls the collective once, on its
/// own host; returns when the last one is done.
inline Outcome run_collective(const topo::Topology& topology, const std::string& algorithm,
                              CollectiveOp op, int size, double bytes, Fidelity fidelity,
                              Call call = {}) {
  CollectiveCall c{algorithm, op, Bytes(bytes), fidelity, {call.base, call.stride, size},
                   call.count};
  c.in_rounds = call.in_rounds;
  c.routing = call.routing;
  CollectiveOutcome out = simulate_collective(topology, c);
  return {out.finish.value(), out.comms, out.returned};
}

struct BothModes {
  Outcome fast, fine;
};

/// run_collective() in fast mode and in fine mode.
inline BothModes run_both(const topo::Topology& topology, const std::string& algorithm,
                          CollectiveOp op, int size, double bytes, Call call = {}) {
  return {run_collective(topology, algorithm, op, size, bytes, Fidelity::fast, call),
          run_collective(topology, algorithm, op, size, bytes, Fidelity::fine, call)};
}

/// Checks both fidelities against `expected` seconds within 1%, every member returning.
inline void expect_both(const topo::Topology& topology, const std::string& algorithm,
                        CollectiveOp op, int size, double bytes, double expected, Call call = {}) {
  for (Fidelity f : {Fidelity::fast, Fidelity::fine}) {
    Outcome run = run_collective(topology, algorithm, op, size, bytes, f, call);
    EXPECT_EQ(run.returned, size);
    EXPECT_NEAR(run.seconds, expected, 0.01 * expected)
        << algorithm << " " << to_string(op) << (f == Fidelity::fast ? " fast" : " fine");
  }
}

} // namespace trainsim::sim::testing
