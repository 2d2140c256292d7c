// Replica bundling, the simulator's side (docs/fast-mode.md, "Replica bundling"): the DP
// replicas of a step run the same program on images of one another's nodes, so on a fabric
// where no link beyond a node's own is ever tighter than its NICs one replica stands for all.
// Replica 0's GPUs run the step; each sends its DP ring's traffic to its rail's GPU on the
// next node of its own TP block, which loads both NICs as the real ring's next replica would;
// every other replica's GPU takes its replica-0 image's statistics. Opt-in (`trainsim run
// --bundle-replicas`): the bundled rings' flows take other routes than the real ones (a
// neighbouring node, often on the same leaf), which changes their latency, not their rate.
// Internal to sim/.
#pragma once

#include <vector>

#include "models/layout.hpp"
#include "sim/stats.hpp"

namespace trainsim::sim {

/// The rank a bundled DP ring sends to in place of its next replica: the GPU at the same place
/// in the next node of `rank`'s TP block (of tp x tp_2d ranks, whole nodes of
/// `gpus_per_node`), the block's last node wrapping to its first.
int bundle_partner(const ExecutionSpec& e, int rank, int gpus_per_node);

/// The ranks to trace when bundling: each traced rank's image in replica 0.
std::vector<bool> traced_in_replica0(const Layout& layout, const std::vector<bool>& traced);

/// After the run: each GPU of a replica other than 0 takes its replica-0 image's statistics,
/// and its trace events when `traced` asks for them (its image was traced on its behalf, and
/// the image's own events are kept only when `traced` asks for them).
void mirror_replicas(const Layout& layout, const std::vector<bool>& traced, SimResult& result);

} // namespace trainsim::sim
