// A scenario's degraded and failed links (models/faults.hpp) found on its built fabric and
// applied to it:
// part of building a scenario (tools/study/scenario_build.hpp).
#pragma once

#include <cstddef>
#include <string>

#include "models/scenario.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

/// "faults.failed[2].switch": entry `i`'s key, as the scenario file writes it.
std::string failed_key(size_t i, const FailedPart& part);

/// Whether link `id` is the one `name` names: its two ends' vertex names joined by "-", in
/// either order ("leaf0-spine1" or "spine1-leaf0").
bool link_named(const topo::Topology& t, int id, const std::string& name);

/// Degrades every link each entry of s.faults.degraded_links names on `topology` and fails
/// those s.faults.failed names; throws InputError naming the entry where it names no link
/// (or switch) of this fabric, or where its failure leaves a GPU cut off from the others.
void apply_link_faults(const Scenario& s, topo::Topology& topology);

} // namespace trainsim
