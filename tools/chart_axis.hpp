// How the report's charts label quantities: round tick steps and time axes.
#pragma once

#include <string>

#include "models/units.hpp"

namespace trainsim {

/// The smallest 1, 2 or 5 x 10^k that cuts `span` into at most `max_intervals` steps
/// (0 when span is not positive), so ticks fall on round values.
double nice_step(double span, int max_intervals);

/// A horizontal time axis under a chart whose x runs from `left` (time 0) to `left + width`
/// (time `span`): a base line at `y`, ticks every nice_step(span, 10), their labels in the
/// unit the step reads best in (s, ms, us or ns) and that unit at the right end.
std::string time_axis(double left, double width, double y, Seconds span);

} // namespace trainsim
