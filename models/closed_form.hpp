// The closed-form lower bound on the step time of one scenario, independent of SimGrid.
// It prices the ops the simulator replays (models/step_program.hpp) along the paths every
// schedule must take, so the simulated step time can never be below it. docs/closed-form.md
// derives each term; tests/models/closed_form_test.cpp checks small cases by hand.
#pragma once

#include <string>
#include <vector>

#include "models/fabric.hpp"
#include "models/scenario.hpp"

namespace trainsim {

/// One additive part of the bound. The parts sum to BoundResult::step_time.
struct BoundTerm {
  std::string name; ///< compute, hbm, latency, network, pipeline_bubble, dp_allreduce
  Seconds time;
  std::string explanation; ///< one line: what was counted and where it comes from
};

struct BoundResult {
  std::vector<BoundTerm> terms; ///< all terms, including zero ones, in a fixed order
  Seconds step_time;            ///< the lower bound: the sum of the terms
  std::string limiting;         ///< name of the largest term
  std::string
      limiting_tier; ///< the fabric tier behind it, when it is a communication term ("" otherwise)
  int critical_stage = 0; ///< the pipeline stage whose chain gives the bound
  double microbatches = 0;
  Flop model_flop;            ///< model FLOP per step (for an MFU upper bound)
  double mfu_upper_bound = 0; ///< model_flop / (gpus x peak x step_time)
};

/// Lower bound on one training step of `scenario` on a fabric summarised by `fabric` (one
/// entry per pipeline stage, models/fabric.hpp): each stage's program (models/step_program.hpp)
/// priced op by op without contention (models/closed_form_stage.hpp), its passes joined by
/// the pipeline's longest path (models/pipeline_path.hpp). Valid when each GPU runs its ops in
/// order, a stream's collectives beside them (a ring phase costs at least (p-1)(alpha +
/// n/(p B)) of its slowest neighbour pair, a pairwise all-to-all its rounds' alpha + (n/p) / B
/// each). Exact, up to rounding, when no two flows share a link, every group of a stage
/// crosses the same tiers and no stream overlaps the passes.
BoundResult closed_form_bound(const Scenario& scenario, const FabricSummary& fabric);

/// "network over leaf": the limiting term and, for a communication term, its tier.
std::string limiting_text(const BoundResult& bound);

/// A few lines for `trainsim bounds`: one row per term, the total and the limiting term.
std::string format_bound(const BoundResult& bound);

} // namespace trainsim
