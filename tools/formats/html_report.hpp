// The HTML report: one self-contained page (inline SVG, no scripts, no network) from what
// `trainsim run --out DIR` wrote (commands/report_command reads the files).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/formats/link_heatmap.hpp"

namespace trainsim {

/// Everything the page shows; each part but `result` is optional.
struct ReportInputs {
  nlohmann::json result;               ///< result.json
  std::optional<nlohmann::json> trace; ///< trace.json
  std::vector<LinkUse> links;          ///< links.csv rows
  std::string frontier_svg;            ///< frontier.svg
  std::string goodput_svg;             ///< goodput.svg (trainsim goodput --out)
};

/// The page. Every chart is an <svg id="..."> with ids stage-breakdown, bound, timeline,
/// link-heatmap and (with a frontier) frontier and (with goodput.svg) goodput.
std::string render_report(const ReportInputs& inputs);

} // namespace trainsim
