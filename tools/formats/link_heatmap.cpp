#include "tools/formats/link_heatmap.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>

#include "tools/formats/report_charts.hpp"
#include "tools/formats/svg.hpp"

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

struct Cell {
  int links = 0;
  double hottest = 0;
};

using Rows = std::map<std::string, std::vector<Cell>>; // tier -> one cell per band

Rows bin(const std::vector<LinkUse>& links) {
  Rows rows;
  for (const LinkUse& l : links) {
    Cell& c = rows.try_emplace(l.tier, std::vector<Cell>(band_edges().size() - 1))
                  .first->second[band(l.utilization)];
    c.links += 1;
    c.hottest = std::max(c.hottest, l.utilization);
  }
  return rows;
}

// Where a utilization sits on the colour scale, 0 to 1: the band edges are evenly spaced,
// as the columns are, so the low bands where most links of a large fabric sit stay apart.
double scale_position(double utilization) {
  const auto& e = band_edges();
  double u = std::clamp(utilization, 0.0, 1.0), bands = static_cast<double>(e.size() - 1);
  size_t b = band(u);
  return (static_cast<double>(b) + (u - e[b]) / (e[b + 1] - e[b])) / bands;
}

std::string cell_svg(const std::string& tier, size_t b, const Cell& c, const svg::Box& box) {
  if (c.links == 0)
    return rect(box, "#f4f4f4", tier + ", " + band_label(b) + ": no link directions");
  std::string out = rect(box, utilization_shade(c.hottest),
                         tier + ", " + band_label(b) + ": " + std::to_string(c.links) +
                             " link directions, the hottest at " + chart_percent(c.hottest));
  std::string ink =
      scale_position(c.hottest) > 0.7 ? "fill=\"white\" " : ""; // dark shades need light text
  return out + text(box.x + box.w / 2, box.y + 15,
                    std::to_string(c.links) + " (max " + chart_percent(c.hottest) + ")",
                    ink + "text-anchor=\"middle\"");
}

// What a shade means: the scale with a tick at every band edge, four shades per band.
std::string colour_scale(double y) {
  const auto& e = band_edges();
  double band_w = 50, steps = 4;
  std::string out = text(kChartLeft - 8, y + 10, "cell shade", "text-anchor=\"end\" fill=\"#555\"");
  for (size_t b = 0; b + 1 < e.size(); ++b)
    for (int i = 0; i < steps; ++i) {
      double u = e[b] + (i + 0.5) / steps * (e[b + 1] - e[b]);
      out +=
          rect({kChartLeft + (static_cast<double>(b) + i / steps) * band_w, y, band_w / steps, 12},
               utilization_shade(u));
    }
  for (size_t b = 0; b < e.size(); ++b)
    out += text(kChartLeft + static_cast<double>(b) * band_w, y + 25, fixed_percent(e[b]),
                "text-anchor=\"middle\"");
  return out + text(kChartLeft + static_cast<double>(e.size() - 1) * band_w + 12, y + 10,
                    "utilization of the cell's hottest link direction");
}

} // namespace

std::string utilization_shade(double utilization) {
  // Three stops, interpolated linearly per channel: near white, orange, dark red.
  static const std::array<std::array<double, 3>, 3> stops = {
      {{255, 247, 236}, {252, 141, 89}, {127, 0, 0}}};
  double u = scale_position(utilization) * 2;
  size_t i = u >= 1 ? 1 : 0;
  double t = u - static_cast<double>(i);
  char buf[8];
  auto channel = [&](size_t k) {
    return static_cast<int>(std::lround(stops[i][k] + t * (stops[i + 1][k] - stops[i][k])));
  };
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", channel(0), channel(1), channel(2));
  return buf;
}

std::string link_heatmap(const std::vector<LinkUse>& links) {
  Rows rows = bin(links);
  size_t bands = band_edges().size() - 1;
  double cell_w = (kChartWidth - kChartLeft - kChartRight) / static_cast<double>(bands),
         cell_h = 24, top = 24;
  double bottom = top + static_cast<double>(rows.size()) * cell_h;
  std::string doc = svg::open("link-heatmap", kChartWidth, bottom + 66);
  for (size_t b = 0; b < bands; ++b)
    doc += text(kChartLeft + (static_cast<double>(b) + 0.5) * cell_w, 16, band_label(b),
                "text-anchor=\"middle\"");
  double y = top;
  for (const auto& [tier, row] : rows) {
    int total = 0;
    for (const Cell& c : row) total += c.links;
    doc += text(kChartLeft - 8, y + 16, tier + " (" + std::to_string(total) + ")",
                "text-anchor=\"end\"");
    for (size_t b = 0; b < row.size(); ++b)
      doc += cell_svg(tier, b, row[b],
                      {kChartLeft + static_cast<double>(b) * cell_w, y, cell_w - 2, cell_h - 2});
    y += cell_h;
  }
  doc += text(kChartLeft, y + 16,
              "columns: utilization = bytes / bandwidth / step time, per link direction that "
              "carried bytes; numbers: how many directions, and the busiest");
  return doc + colour_scale(y + 28) + "</svg>\n";
}

} // namespace trainsim
