#include "tools/link_heatmap.hpp"

#include <cstdio>
#include <map>

#include "tools/report_charts.hpp"
#include "tools/svg.hpp"

namespace trainsim {
namespace {

using svg::rect;
using svg::text;

std::string fixed_percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", 100 * f);
  return buf;
}

// Utilization bands, finer at the low end where most links of a large fabric sit.
const std::vector<double>& band_edges() {
  static const std::vector<double> edges = {0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0};
  return edges;
}

size_t band(double utilization) {
  const auto& e = band_edges();
  size_t b = 0;
  while (b + 2 < e.size() && utilization >= e[b + 1]) ++b;
  return b; // the last band also holds anything at or above 100 %
}

std::string band_label(size_t b) {
  const auto& e = band_edges();
  return fixed_percent(e[b]) + "-" + fixed_percent(e[b + 1]);
}

} // namespace

// Cells are shaded by the share of the tier's links in that band.
std::string link_heatmap(const std::vector<LinkUse>& links) {
  size_t bands = band_edges().size() - 1;
  std::map<std::string, std::vector<int>> bins;
  for (const LinkUse& l : links)
    bins.try_emplace(l.tier, std::vector<int>(bands, 0)).first->second[band(l.utilization)] += 1;
  double cell_w = (kChartWidth - kChartLeft - kChartRight) / static_cast<double>(bands), cell_h = 24, top = 24;
  std::string doc = svg::open("link-heatmap", kChartWidth, top + static_cast<double>(bins.size()) * cell_h + 30);
  for (size_t b = 0; b < bands; ++b)
    doc += text(kChartLeft + (static_cast<double>(b) + 0.5) * cell_w, 16, band_label(b), "text-anchor=\"middle\"");
  double y = top;
  for (const auto& [tier, row] : bins) {
    int total = 0;
    for (int n : row) total += n;
    doc += text(kChartLeft - 8, y + 16, tier + " (" + std::to_string(total) + ")", "text-anchor=\"end\"");
    for (size_t b = 0; b < row.size(); ++b) {
      double share = static_cast<double>(row[b]) / total;
      std::string fill = row[b] == 0 ? "#f4f4f4" : "rgb(" + std::to_string(static_cast<int>(255 - 200 * share)) + "," +
                                                       std::to_string(static_cast<int>(235 - 160 * share)) + ",230)";
      double x = kChartLeft + static_cast<double>(b) * cell_w;
      doc += rect({x, y, cell_w - 2, cell_h - 2}, fill, tier + ": " + std::to_string(row[b]) + " link directions");
      std::string ink = share > 0.5 ? "fill=\"white\" " : "";
      if (row[b] > 0) doc += text(x + cell_w / 2, y + 15, std::to_string(row[b]), ink + "text-anchor=\"middle\"");
    }
    y += cell_h;
  }
  doc += text(kChartLeft, y + 16, "utilization = bytes / bandwidth / step time, per link direction that carried bytes");
  return doc + "</svg>\n";
}

} // namespace trainsim
