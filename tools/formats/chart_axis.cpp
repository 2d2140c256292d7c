#include "tools/formats/chart_axis.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

#include "tools/formats/svg.hpp"

namespace trainsim {
namespace {

struct TickUnit {
  double seconds;
  const char* name;
};

// The unit in which every tick is a whole number: the step itself is at least one of it.
TickUnit tick_unit(double step) {
  if (step >= 1) return {1, "s"};
  if (step >= 1e-3) return {1e-3, "ms"};
  if (step >= 1e-6) return {1e-6, "us"};
  return {1e-9, "ns"};
}

std::string tick_label(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

std::string count_of(double whole, const std::string& unit) {
  return tick_label(whole) + " " + unit + (whole == 1 ? "" : "s");
}

} // namespace

double nice_step(double span, int max_intervals) {
  if (span <= 0 || max_intervals < 1) return 0;
  double raw = span / max_intervals;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double f : {1.0, 2.0, 5.0})
    if (f * magnitude >= raw * (1 - 1e-12)) return f * magnitude;
  return 10 * magnitude;
}

std::string time_axis(double left, double width, double y, Seconds span) {
  double step = nice_step(span.value(), 10);
  std::string out = svg::line(left, y, left + width, y, "stroke=\"#888\"");
  if (step <= 0) return out;
  TickUnit unit = tick_unit(step);
  double per_tick = std::round(step / unit.seconds * 1e6) / 1e6; // whole in practice; no 49.999999
  for (int i = 0; i * step <= span.value() * (1 + 1e-9); ++i) {
    double x = left + i * step / span.value() * width;
    out += svg::line(x, y, x, y + 4, "stroke=\"#888\"");
    out += svg::text(x, y + 15, tick_label(i * per_tick), "text-anchor=\"middle\"");
  }
  return out + svg::text(left + width / 2, y + 29,
                         std::string("time in the step (") + unit.name + ")",
                         "text-anchor=\"middle\" fill=\"#555\"");
}

std::string format_duration(Seconds t) {
  static const std::pair<const char*, double> units[] = {{"year", 3.1536e7}, {"month", 2.592e6},
                                                         {"week", 604800.0}, {"day", 86400.0},
                                                         {"hour", 3600.0},   {"minute", 60.0}};
  double v = t.value();
  if (v < 60) return format(t);
  for (const auto& [name, seconds] : units) {
    double n = v / seconds;
    if (n >= 1 && n < 1000 && std::abs(n - std::round(n)) <= 1e-9 * n)
      return count_of(std::round(n), name);
  }
  for (const auto& [name, seconds] : units)
    if (v / seconds >= 1) return significant(v / seconds, 2) + " " + name + "s";
  return format(t); // not reached: v >= 60 is at least a minute
}

std::string significant(double v, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  std::string s = buf;
  auto e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mantissa = s.substr(0, e), exponent = s.substr(e + 1);
  bool negative = exponent[0] == '-';
  exponent.erase(0, exponent.find_first_not_of("+-0"));
  return mantissa + "e" + (negative ? "-" : "") + (exponent.empty() ? "0" : exponent);
}

} // namespace trainsim
