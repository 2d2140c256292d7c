// The order in which a pipeline stage runs the forward and backward passes of its
// microbatches, for each pipeline schedule.
#pragma once

#include <vector>

#include "models/scenario.hpp"

namespace trainsim {

struct PipelineOp {
  bool forward = true;
  int microbatch = 0;
};

/// GPipe: all forwards, then all backwards. 1F1B (PipeDream-Flush): stage s runs
/// min(stages - s - 1, m) warm-up forwards, then alternates one forward and one backward,
/// then drains the remaining backwards.
std::vector<PipelineOp> pipeline_order(PipelineSchedule schedule, int stage, int stages, int microbatches);

} // namespace trainsim
