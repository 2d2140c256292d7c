// How the report's and the frontier's charts label quantities: round tick steps, time axes,
// durations in calendar units, numbers to a few significant digits.
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

/// A duration in the largest calendar unit that reads well: the largest unit (years of 365
/// days, 30-day months, weeks, days, hours, minutes) holding it a whole number of times
/// below 1000 ("3 months", "90 minutes"), else the largest it exceeds to two significant
/// digits ("3.9 months"); under a minute, seconds with an SI prefix. The inverse of
/// parse_duration (models/frontier.hpp) on its units.
std::string format_duration(Seconds t);

/// `v` to `digits` significant digits, the exponent without '+' or leading zeros:
/// significant(1.27e28, 2) = "1.3e28", significant(0.64, 2) = "0.64".
std::string significant(double v, int digits);

} // namespace trainsim
