// A storage tier added to a built fabric, for pricing a checkpoint's write over it
// (`trainsim goodput`, docs/faults.md). `nodes` storage servers, each on one link of its own
// to a switch of one tier of the fabric (spread over its switches in turn): by default its top
// tier, as storage servers hang off the spine or core of a training cluster's fabric, or the
// leaves, as storage racks on the leaves do. They are the vertices after the job's GPUs, with
// ranks gpus..gpus + nodes - 1, so a simulator runs them as hosts of their own.
#pragma once

#include "topologies/topology.hpp"

namespace trainsim::topo {

/// `job` with the storage tier on the switches of `level` (1 leaf, 2 spine, 3 core; 0 the
/// highest there is); `job` must outlive the result (the job's routes are its). A GPU's route
/// to a storage server is a shortest path through switches only. Throws std::invalid_argument
/// where the fabric has no network switch of that level to attach to.
Topology with_storage(const Topology& job, int nodes, BytesPerSecond per_node, Seconds latency,
                      int level = 0);

} // namespace trainsim::topo
