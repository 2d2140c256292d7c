// Writers for `trainsim frontier` (frontier.csv, frontier.json, frontier.svg) and the JSON
// form of the closed-form bound used by `trainsim bounds --json` and `trainsim run`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "models/closed_form.hpp"
#include "models/frontier.hpp"

namespace trainsim {

/// Writes frontier.csv, frontier.json and frontier.svg into `out_dir` (created if needed).
/// Throws Error(ExitCode::io) naming the file when one cannot be written.
void write_frontier(const FrontierResult& result, const std::string& out_dir);

/// The three documents, for tests and for callers that write elsewhere.
std::string frontier_csv(const FrontierResult& result);
nlohmann::json frontier_json(const FrontierResult& result);
/// The plot (tools/formats/frontier_plot.cpp): durations in calendar units, FLOP to two
/// significant digits, the knee threshold labelled, and a note where a latency wall lies
/// outside [10^30.5, 10^31.5] FLOP, the paper's ~1e31.
std::string frontier_svg(const FrontierResult& result);

/// {"step_time_s", "limiting", "critical_stage", "microbatches", "mfu_upper_bound",
///  "terms": [{"name", "seconds", "explanation"}]}. For result.json, `trainsim run` adds
/// bound.step_time_s and bound.limiting from the same fields.
nlohmann::json bound_json(const BoundResult& bound);

} // namespace trainsim
