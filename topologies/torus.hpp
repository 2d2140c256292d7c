// A 2-D or 3-D torus of GPUs joined by direct links (TPU-style inter-chip interconnect):
// no switches, no NVSwitch; GPU rank r is vertex r with coordinates x0 + s0 * (x1 + s1 * x2)
// (first dimension fastest). Routes go dimension by dimension (x0, then x1, then x2), each
// the shorter way around its ring; half way round, the flow hash picks the direction.
#pragma once

#include <vector>

#include "models/params.hpp"
#include "models/topology_spec.hpp"
#include "topologies/build.hpp"
#include "topologies/spec.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

// TorusParams is in models/topology_spec.hpp.

/// Reads the section's keys (dims as "4x4" or "4x4x4"; unknown keys rejected).
TorusParams parse_torus(const Params& section);

/// Checks `p` as parse_torus does (messages name "TorusParams") and builds it.
Topology build_torus(const TorusParams& p);
/// The graph build_torus makes: one vertex per GPU; per ring of size s, s links (one when s is 2).
TopologySize torus_size(const TorusParams& p);
/// Every key with its value, in the order parse_torus reads them.
std::vector<TopologySetting> torus_settings(const TorusParams& p);

} // namespace trainsim::topo
