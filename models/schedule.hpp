// The order in which a pipeline stage runs the forward and backward passes of its
// microbatches, for each pipeline schedule.
#pragma once

#include <vector>

#include "models/scenario.hpp"

namespace trainsim {

struct PipelineOp {
  bool forward = true;
  int microbatch = 0;
  int chunk = 0; ///< virtual stage on this GPU (interleaved schedule), else 0
  /// A pass of 1F1B's steady state, where each forward is followed by a backward (of an
  /// earlier microbatch: ep_overlap runs the two together).
  bool steady = false;
};

/// GPipe: all forwards, then all backwards. 1F1B (PipeDream-Flush): stage s runs
/// min(stages - s - 1, m) warm-up forwards, then alternates one forward and one backward,
/// then drains the remaining backwards. Interleaved (Megatron-LM): the same over m x chunks
/// passes, microbatches taken in groups of `group` (0: stages) that each visit every chunk,
/// the last group holding the rest, with 2(stages - s - 1) + (chunks - 1) group warm-up
/// passes (the scenario rules keep group in [stages, m] and the last group at least stages).
/// DualPipeV (models/schedule.cpp): two chunks in a V, at least 2 x stages microbatches;
/// chunks, group and extra_warmup do not apply.
/// `extra_warmup` more warm-up forwards (1 under ep_overlap: Megatron-Core's combined 1F1B
/// moves one more forward into the warm-up, so that each steady-state forward and the
/// backward after it are independent and run together).
std::vector<PipelineOp> pipeline_order(PipelineSchedule schedule, int stage, int stages,
                                       int microbatches, int chunks = 1, int group = 0,
                                       int extra_warmup = 0);

} // namespace trainsim
