#include "models/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace trainsim {
namespace {

struct Prefix {
  std::string_view symbol;
  double factor;
};

// Longest symbols first so "Gi" wins over "G".
constexpr std::array<Prefix, 13> kPrefixes{{{"Ki", 1024.0},
                                            {"Mi", 1048576.0},
                                            {"Gi", 1073741824.0},
                                            {"Ti", 1099511627776.0},
                                            {"n", 1e-9},
                                            {"u", 1e-6},
                                            {"m", 1e-3},
                                            {"k", 1e3},
                                            {"K", 1e3},
                                            {"M", 1e6},
                                            {"G", 1e9},
                                            {"T", 1e12},
                                            {"P", 1e15}}};

struct Split {
  double number;
  std::string_view unit;
};

Split split_number(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double number = 0.0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || !std::isfinite(number))
    throw std::invalid_argument("'" + std::string(text) + "' does not start with a number");
  std::string_view unit(end, static_cast<size_t>(text.data() + text.size() - end));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  return {number, unit};
}

// Finds prefix * base unit, trying each base spelling; returns the factor or throws.
double unit_factor(std::string_view unit, std::initializer_list<std::pair<std::string_view, double>> bases,
                   std::string_view text, std::string_view expected) {
  for (auto [base, base_factor] : bases) {
    if (unit == base) return base_factor;
    if (unit.size() <= base.size() || unit.substr(unit.size() - base.size()) != base) continue;
    std::string_view prefix = unit.substr(0, unit.size() - base.size());
    for (const auto& p : kPrefixes)
      if (prefix == p.symbol) return p.factor * base_factor;
  }
  throw std::invalid_argument("'" + std::string(text) + "' has no valid unit (expected " + std::string(expected) + ")");
}

double parse_with(std::string_view text, std::initializer_list<std::pair<std::string_view, double>> bases,
                  std::string_view expected) {
  auto [number, unit] = split_number(text);
  if (unit.empty())
    throw std::invalid_argument("'" + std::string(text) + "' needs a unit (" + std::string(expected) + ")");
  double value = number * unit_factor(unit, bases, text, expected);
  if (!std::isfinite(value)) throw std::invalid_argument("'" + std::string(text) + "' is out of range");
  return value;
}

std::string with_prefix(double value, std::string_view unit) {
  static constexpr std::array<std::pair<double, const char*>, 9> steps{
      {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1.0, ""}, {1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}}};
  double magnitude = std::fabs(value);
  for (auto [factor, symbol] : steps) {
    if (magnitude >= factor || factor == 1e-9) {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.3g %s%.*s", value / factor, symbol, static_cast<int>(unit.size()),
                    unit.data());
      return buffer;
    }
  }
  return {};
}

} // namespace

Seconds parse_seconds(std::string_view text) {
  double v = parse_with(text, {{"s", 1.0}}, "s, ms, us, ns");
  return Seconds(v);
}

Bytes parse_bytes(std::string_view text) { return Bytes(parse_with(text, {{"B", 1.0}}, "B, kB, MB, GB, GiB, ...")); }

BytesPerSecond parse_bandwidth(std::string_view text) {
  return BytesPerSecond(parse_with(text, {{"Bps", 1.0}, {"B/s", 1.0}, {"bps", 0.125}, {"b/s", 0.125}},
                                   "Bps or bps with a prefix, e.g. 450GBps, 400Gbps"));
}

FlopPerSecond parse_flop_rate(std::string_view text) {
  return FlopPerSecond(parse_with(text, {{"FLOPS", 1.0}, {"FLOP/s", 1.0}, {"flops", 1.0}},
                                  "FLOPS with a prefix, e.g. 989TFLOPS"));
}

Flop parse_flop(std::string_view text) {
  return Flop(parse_with(text, {{"FLOP", 1.0}, {"flop", 1.0}}, "FLOP, e.g. 1e25FLOP"));
}

std::string format(Seconds t) { return with_prefix(t.value(), "s"); }
std::string format(Bytes b) { return with_prefix(b.value(), "B"); }
std::string format(BytesPerSecond r) { return with_prefix(r.value(), "B/s"); }
std::string format(FlopPerSecond r) { return with_prefix(r.value(), "FLOP/s"); }
std::string format(Flop f) { return with_prefix(f.value(), "FLOP"); }

} // namespace trainsim
