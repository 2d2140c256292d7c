#include "tools/formats/goodput_plot.hpp"

#include <algorithm>
#include <cmath>

#include "models/units.hpp"
#include "tools/formats/chart_axis.hpp"
#include "tools/formats/svg.hpp"

namespace trainsim {
namespace {

using svg::line;
using svg::text;

// One panel: goodput 0..1 up, log10 of x across.
struct Panel {
  double left, right, top = 40, bottom = 300;
  double log_min, log_max;
  [[nodiscard]] double x(double v) const {
    return left + (std::log10(v) - log_min) / (log_max - log_min) * (right - left);
  }
  [[nodiscard]] double y(double g) const { return bottom - std::clamp(g, 0.0, 1.0) * (bottom - top); }
};

Panel panel_for(const std::vector<GoodputPoint>& points, double left, double right) {
  double lo = points.front().x, hi = points.front().x;
  for (const GoodputPoint& p : points) lo = std::min(lo, p.x), hi = std::max(hi, p.x);
  return {left, right, 40, 300, std::floor(std::log10(lo)), std::ceil(std::log10(hi))};
}

template <class Label>
std::string axes(const Panel& p, const std::string& title, Label label) {
  std::string doc = line(p.left, p.bottom, p.right, p.bottom, "stroke=\"black\"");
  doc += line(p.left, p.top, p.left, p.bottom, "stroke=\"black\"");
  for (int e = static_cast<int>(p.log_min); e <= static_cast<int>(p.log_max); ++e) {
    double x = p.x(std::pow(10.0, e));
    doc += line(x, p.bottom, x, p.bottom + 5, "stroke=\"black\"");
    doc += text(x, p.bottom + 18, label(std::pow(10.0, e)), "text-anchor=\"middle\" font-size=\"11\"");
  }
  for (int i = 0; i <= 5; ++i) {
    double g = 0.2 * i;
    doc += line(p.left - 5, p.y(g), p.left, p.y(g), "stroke=\"black\"");
    doc += text(p.left - 8, p.y(g) + 4, significant(100 * g, 3) + "%",
                "text-anchor=\"end\" font-size=\"11\"");
  }
  return doc + text((p.left + p.right) / 2, p.top - 12, title,
                    "text-anchor=\"middle\" font-size=\"13\"");
}

std::string curve(const Panel& p, const std::vector<GoodputPoint>& points) {
  std::string d;
  for (const GoodputPoint& q : points)
    d += (d.empty() ? "M" : " L") + svg::num(p.x(q.x)) + " " + svg::num(p.y(q.goodput));
  return "<path d=\"" + d + "\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>\n";
}

std::string marker(const Panel& p, double x, const std::string& label) {
  return line(p.x(x), p.top, p.x(x), p.bottom, "stroke=\"#d62728\" stroke-dasharray=\"4 3\"") +
         text(p.x(x) + 4, p.top + 14, label, "font-size=\"11\" fill=\"#d62728\"");
}

} // namespace

std::string goodput_svg(const GoodputCurves& c) {
  std::string doc = svg::open("goodput", 900, 340);
  Panel interval = panel_for(c.by_interval, 70, 420);
  doc += axes(interval, "goodput against the checkpoint interval",
              [](double s) { return format(Seconds(s)); });
  doc += curve(interval, c.by_interval) + marker(interval, c.chosen_interval, "chosen");
  Panel size = panel_for(c.by_size, 520, 870);
  doc += axes(size, "goodput against the cluster size (GPUs)",
              [](double g) { return significant(g, 2); });
  doc += curve(size, c.by_size) + marker(size, c.job_gpus, "this job");
  return doc + "</svg>\n";
}

} // namespace trainsim
