// The charts of `trainsim report`, each an inline <svg id="..."> drawn from what `trainsim
// run --out` wrote. The page around them is tools/formats/html_report.cpp.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/units.hpp"

namespace trainsim {

/// The page's chart geometry: every chart is as wide, with its labels left of kChartLeft.
constexpr double kChartWidth = 900, kChartLeft = 110, kChartRight = 20;

/// A fraction as a percentage with one decimal: "29.0%".
std::string chart_percent(double fraction);

/// The phase of the step a chart key stands for: "tp" for the breakdown's tp_comm, the trace's
/// tp and tp_background; "bubble" for the bound's pipeline_bubble; other keys are their own.
std::string phase_of(const std::string& key);
/// One colour per phase, the same in every chart (colour-blind-safe Tableau hues): a breakdown
/// category, trace kind or bound term has its phase's colour, and no two phases share one.
std::string colour(const std::string& key);

/// One swatch and name per key, left to right from `x` on the baseline `y`.
std::string legend(const std::vector<std::string>& keys, double y, double x = 10);

/// "stage-breakdown": per pipeline stage, the mean of each category over its GPUs, stacked
/// to the step time, on a time axis.
std::string stage_chart(const nlohmann::json& result);

/// "bound": the closed-form bound stacked by its terms (result.json's bound.terms) above the
/// simulated step stacked by the mean breakdown, on one time axis. Without terms (an older
/// result.json) the bound is one bar.
std::string bound_chart(const nlohmann::json& result);

/// An HTML table of the bound's terms: name, time, share of the bound and what it counts.
/// Empty without terms.
std::string bound_terms_table(const nlohmann::json& result);

/// An HTML table defining each breakdown category (tools/formats/report.hpp), with its colour.
std::string breakdown_legend_table();

/// "timeline": up to 16 traced GPUs' main tracks, taken round-robin over the stages, on a
/// time axis of the step.
std::string timeline_chart(const nlohmann::json& trace, Seconds step);

} // namespace trainsim
