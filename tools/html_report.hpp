// `trainsim report RESULT_DIR`: one self-contained HTML page (inline SVG, no scripts, no
// network) from what `trainsim run --out DIR` wrote: result.json, and when present
// trace.json, links.csv and frontier.svg (from `trainsim frontier --out`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/link_heatmap.hpp"

namespace trainsim {

struct ReportOptions {
  std::string result_dir; ///< holds result.json
  std::string out;        ///< the HTML file; empty: RESULT_DIR/report.html
};

/// Returns the exit code; throws InputError when result.json is missing or malformed,
/// Error(ExitCode::io) when the page cannot be written.
int report_command(const ReportOptions& options);

/// Everything the page shows; each part but `result` is optional.
struct ReportInputs {
  nlohmann::json result;                 ///< result.json
  std::optional<nlohmann::json> trace;   ///< trace.json
  std::vector<LinkUse> links;            ///< links.csv rows
  std::string frontier_svg;              ///< frontier.svg
};

/// The page. Every chart is an <svg id="..."> with ids stage-breakdown, bound, timeline,
/// link-heatmap and (with a frontier) frontier.
std::string render_report(const ReportInputs& inputs);

} // namespace trainsim
