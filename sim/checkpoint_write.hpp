// A checkpoint's write priced by the simulator: every GPU sends its share of the state to a
// storage server over the fabric (topologies/storage.hpp), all at once, as a fully parallel
// distributed save does; the write ends when the last byte lands. The fabric's links and the
// servers' own links share their bandwidth among the flows as in a step.
#pragma once

#include "models/scenario.hpp"
#include "topologies/topology.hpp"

namespace trainsim::sim {

struct CheckpointWrite {
  Seconds time;       ///< from the first byte sent to the last one stored
  double per_gpu = 0; ///< bytes each GPU wrote
};

/// Writes `bytes` in all, an equal share from each of the job's `gpus` GPUs, GPU r to storage
/// server r mod servers, on `with_storage` (the job's fabric and its storage tier, whose
/// servers are the ranks from `gpus` on).
CheckpointWrite simulate_checkpoint_write(const topo::Topology& with_storage, const GpuSpec& gpu,
                                          int gpus, Bytes bytes);

} // namespace trainsim::sim
