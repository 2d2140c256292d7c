#include "models/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>
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

// Which prefixes make sense for a quantity: a millibit per second or a microbyte is a typo
// ("400mbps" for 400 Mb/s), never an intended value, and a kilosecond is not how anyone writes
// a latency; accepting them silently turns a typo into a number a million times off.
enum class Prefixes {
  multiples, ///< k, K, M, G, T, P, Ki, Mi, Gi, Ti: bytes, bits, bandwidth, FLOP, FLOP/s
  fractions, ///< n, u, m (or none): seconds
};

bool allowed(const Prefix& p, Prefixes which) {
  return which == Prefixes::multiples ? p.factor >= 1.0 : p.factor < 1.0;
}

std::string allowed_list(Prefixes which) {
  std::string list;
  for (size_t length : {1, 2}) // decimal first, then binary: the table is ordered for matching
    for (const auto& p : kPrefixes)
      if (allowed(p, which) && p.symbol.size() == length)
        list += (list.empty() ? "" : ", ") + std::string(p.symbol);
  return which == Prefixes::fractions ? list + " or none" : list;
}

const Prefix* find_prefix(std::string_view symbol) {
  for (const auto& p : kPrefixes)
    if (symbol == p.symbol) return &p;
  return nullptr;
}

// "400mbps" was meant as 400Mbps, "5Ms" as 5ms: the same letter in the other case, when allowed.
std::string other_case_hint(std::string_view text, std::string_view prefix, Prefixes which) {
  if (prefix.size() != 1) return {};
  char c = prefix.front();
  char swapped =
      c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : static_cast<char>(c - 'A' + 'a');
  const Prefix* other = find_prefix(std::string_view(&swapped, 1));
  if (other == nullptr || !allowed(*other, which)) return {};
  std::string fixed(text);
  fixed[fixed.rfind(c)] = swapped;
  return " (did you mean '" + fixed + "'?)";
}

struct UnitSpec {
  std::string_view name; ///< in messages: "bandwidth takes the prefixes ..."
  std::initializer_list<std::pair<std::string_view, double>> bases;
  std::string_view expected; ///< the units, in messages
  Prefixes prefixes;
};

// Finds prefix * base unit, trying each base spelling; returns the factor or throws.
double unit_factor(std::string_view unit, const UnitSpec& q, std::string_view text) {
  const Prefix* refused = nullptr;
  std::string_view refused_symbol;
  for (auto [base, base_factor] : q.bases) {
    if (unit == base) return base_factor;
    if (unit.size() <= base.size() || unit.substr(unit.size() - base.size()) != base) continue;
    std::string_view prefix = unit.substr(0, unit.size() - base.size());
    const Prefix* p = find_prefix(prefix);
    if (p != nullptr && allowed(*p, q.prefixes)) return p->factor * base_factor;
    if (p != nullptr && refused == nullptr) refused = p, refused_symbol = prefix;
  }
  if (refused != nullptr)
    throw std::invalid_argument("'" + std::string(text) + "': " + std::string(q.name) +
                                " takes the prefixes " + allowed_list(q.prefixes) + ", not '" +
                                std::string(refused_symbol) + "'" +
                                other_case_hint(text, refused_symbol, q.prefixes));
  throw std::invalid_argument("'" + std::string(text) + "' has no valid unit (expected " +
                              std::string(q.expected) + ")");
}

double parse_with(std::string_view text, const UnitSpec& q) {
  auto [number, unit] = split_number(text);
  if (unit.empty())
    throw std::invalid_argument("'" + std::string(text) + "' needs a unit (" +
                                std::string(q.expected) + ")");
  double value = number * unit_factor(unit, q, text);
  if (!std::isfinite(value))
    throw std::invalid_argument("'" + std::string(text) + "' is out of range");
  return value;
}

std::string with_prefix(double value, std::string_view unit, int digits = 3) {
  static constexpr std::array<std::pair<double, const char*>, 9> steps{{{1e15, "P"},
                                                                        {1e12, "T"},
                                                                        {1e9, "G"},
                                                                        {1e6, "M"},
                                                                        {1e3, "k"},
                                                                        {1.0, ""},
                                                                        {1e-3, "m"},
                                                                        {1e-6, "u"},
                                                                        {1e-9, "n"}}};
  double magnitude = std::fabs(value);
  for (auto [factor, symbol] : steps) {
    if (magnitude >= factor || factor == 1e-9) {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.*g %s%.*s", digits, value / factor, symbol,
                    static_cast<int>(unit.size()), unit.data());
      return buffer;
    }
  }
  return {};
}

// Beyond a minute a time reads in minutes, hours, days or years, not kiloseconds.
std::string human_time(double seconds, int digits) {
  struct Unit {
    double from, size; ///< s: used from `from` on, in units of `size`
    const char* name;
  };
  static constexpr std::array<Unit, 4> units{{{365.25 * 86400, 365.25 * 86400, "years"},
                                              {2 * 86400, 86400, "days"},
                                              {3600, 3600, "h"},
                                              {60, 60, "min"}}};
  for (auto [from, size, name] : units)
    if (std::fabs(seconds) >= from) {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.*g %s", digits, seconds / size, name);
      return buffer;
    }
  return with_prefix(seconds, "s", digits);
}

} // namespace

Seconds parse_seconds(std::string_view text) {
  // Minutes and hours for what a run's reliability is written in (MTBFs, intervals).
  return Seconds(parse_with(text, {"time",
                                   {{"s", 1.0}, {"min", 60.0}, {"h", 3600.0}},
                                   "s, ms, us, ns, min, h",
                                   Prefixes::fractions}));
}

Bytes parse_bytes(std::string_view text) {
  return Bytes(
      parse_with(text, {"a size", {{"B", 1.0}}, "B, kB, MB, GB, GiB, ...", Prefixes::multiples}));
}

BytesPerSecond parse_bandwidth(std::string_view text) {
  return BytesPerSecond(
      parse_with(text, {"bandwidth",
                        {{"Bps", 1.0}, {"B/s", 1.0}, {"bps", 0.125}, {"b/s", 0.125}},
                        "Bps or bps with a prefix, e.g. 450GBps, 400Gbps",
                        Prefixes::multiples}));
}

FlopPerSecond parse_flop_rate(std::string_view text) {
  return FlopPerSecond(parse_with(text, {"a compute rate",
                                         // "989 TFLOPs" as datasheets and papers write it
                                         {{"FLOPS", 1.0},
                                          {"FLOP/s", 1.0},
                                          {"flops", 1.0},
                                          {"FLOPs", 1.0}},
                                         "FLOPS with a prefix, e.g. 989TFLOPS",
                                         Prefixes::multiples}));
}

Flop parse_flop(std::string_view text) {
  return Flop(parse_with(
      text,
      {"compute", {{"FLOP", 1.0}, {"flop", 1.0}}, "FLOP, e.g. 1e25FLOP", Prefixes::multiples}));
}

std::string format(Seconds t) { return human_time(t.value(), 3); }

std::pair<std::string, std::string> format_apart(Seconds a, Seconds b) {
  int digits = 3;
  while (digits < 9 && a != b && human_time(a.value(), digits) == human_time(b.value(), digits))
    ++digits;
  return {human_time(a.value(), digits), human_time(b.value(), digits)};
}
std::string format(Bytes b) { return with_prefix(b.value(), "B"); }
std::string format(BytesPerSecond r) { return with_prefix(r.value(), "B/s"); }
std::string format(FlopPerSecond r) { return with_prefix(r.value(), "FLOP/s"); }
std::string format(Flop f) { return with_prefix(f.value(), "FLOP"); }

} // namespace trainsim
