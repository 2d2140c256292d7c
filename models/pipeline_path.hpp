// The earliest time each pipeline stage can finish its passes, given a lower bound on the
// time of each pass and of each stage-to-stage transfer: the longest path through the
// schedule's dependency graph. Part of the closed form (models/closed_form.hpp).
#pragma once

#include <algorithm>
#include <vector>

#include "models/scenario.hpp"
#include "models/units.hpp"

namespace trainsim {

/// Per chunk and stage (entry chunk x stages + stage), the time of its forward and backward
/// pass of one microbatch: chunks x stages entries each.
struct PassTimes {
  std::vector<Seconds> forward, backward;
  /// What the passes of the first virtual stage (the embedding) and of the last (the LM
  /// head and the loss) take on top of their chunk's.
  struct Extra {
    Seconds forward, backward;
  };
  Extra first, last;
};

/// When each stage is done: its last pass has ended and its last sends have arrived.
///
/// The graph has one node per pass, weighted by its time, and three kinds of edges: a
/// stage runs its passes in pipeline_order(), one at a time; a forward needs the previous
/// virtual stage's forward of the same microbatch plus one `send`; a backward needs the
/// next virtual stage's backward plus one `send` (the last virtual stage its own forward).
/// Neighbouring virtual stages on one stage (the bottom of DualPipeV's V) send nothing.
/// Nothing else is assumed (sends never block the sender, receives are always posted), so
/// any replay of the schedule with at least these times takes at least this long. In
/// 1F1B's steady state this path alternates between neighbouring stages and picks up one
/// send per microbatch, which a fill-and-drain formula misses.
std::vector<Seconds> pipeline_finish(PipelineSchedule schedule, int microbatches, int chunks,
                                     const PassTimes& pass, Seconds send, int group = 0,
                                     int extra_warmup = 0);

/// Stage times per step when every pass takes the same time and sends are free: m + (stages -
/// 1) / chunks, so that pipeline_finish() of such passes is this many times one microbatch's
/// forward and backward on a stage; never below `stages`, one microbatch's chain through every
/// stage. The frontier prices its pipelines with it (docs/closed-form.md, "One plan"), a few
/// times for each of its millions of plans: inline.
inline double pipeline_slots(int microbatches, int stages, int chunks = 1) {
  double slots = microbatches + static_cast<double>(stages - 1) / chunks;
  return std::max(slots, static_cast<double>(stages));
}

} // namespace trainsim
