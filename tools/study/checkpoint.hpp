// What `trainsim goodput` prices from a built scenario: the checkpoint (its size, its write
// over the fabric to the storage tier, simulated, and what the job stops for) and how many
// units of each failing component the job runs on (models/reliability.hpp).
#pragma once

#include "models/reliability.hpp"
#include "tools/study/scenario_build.hpp"

namespace trainsim {

struct CheckpointPrice {
  Bytes whole;       ///< the model's weights and optimizer state, once
  Bytes per_gpu;     ///< the most any GPU holds of them (an asynchronous copy's size)
  Seconds write;     ///< every GPU's share written to the storage servers, simulated
  Seconds host_copy; ///< the fullest GPU's state over its host link (0 without one)
  Seconds stop;      ///< what the job stops for: the write, or the host copy if asynchronous
};

/// Prices the checkpoint of `loaded` on its fabric with the storage tier `r` describes
/// (r.storage_bandwidth must be set). Throws InputError naming the reliability key where the
/// checkpoint does not fit the storage, the fabric has no switch to attach storage to, or an
/// asynchronous copy has no host link to cross.
CheckpointPrice price_checkpoint(const LoadedScenario& loaded, const ReliabilitySpec& r);

/// The job's units of each component: its GPUs (for gpu, hbm, network and software), hosts
/// of r.gpus_per_host GPUs, NICs, and the fabric's network switches and cables.
Exposure job_exposure(const LoadedScenario& loaded, const ReliabilitySpec& r);

} // namespace trainsim
