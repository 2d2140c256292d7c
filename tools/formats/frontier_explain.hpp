// `trainsim frontier --explain FLOP`: one point of the dense frontier in words: its shape and
// budget, the best plan, the terms of its step with the binding one marked, and the latency
// term laid out as one layer's serial path against the time a layer may take.
#pragma once

#include <ostream>

#include "models/frontier.hpp"

namespace trainsim {

/// What the point's latency term must fit in: the step budget over the pipeline's slots and
/// the stage's layers (duration / steps / (m + (pp - 1) / v) / layers on the busiest stage).
Seconds per_layer_budget(const FrontierPoint& point, const FrontierHardware& hw);

void explain_point(std::ostream& out, const FrontierPoint& point, const FrontierHardware& hw,
                   const FrontierOptions& options);

} // namespace trainsim
