// A 2-D or 3-D torus of GPUs joined by direct links (TPU-style inter-chip interconnect):
// no switches, no NVSwitch; GPU rank r is vertex r with coordinates x0 + s0 * (x1 + s1 * x2)
// (first dimension fastest). Routes go dimension by dimension (x0, then x1, then x2), each
// the shorter way around its ring; half way round, the flow hash picks the direction.
#pragma once

#include <vector>

#include "models/params.hpp"
#include "topologies/build.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

struct TorusParams {
  std::vector<int> dims{4, 4};       ///< ring sizes, 2 or 3 of them ("4x4x4" in a scenario)
  BytesPerSecond link_bandwidth{50e9}; ///< per direction per link (TPU v4 ICI class)
  Seconds link_latency{1e-6};        ///< per hop, including the chip's router

  static TorusParams from(const Params& params);
};

Topology build_torus(const TorusParams& p);
/// The graph build_torus makes: one vertex per GPU; per ring of size s, s links (one when s is 2).
TopologySize torus_size(const TorusParams& p);
Topology build_torus(const Params& params);

} // namespace trainsim::topo
