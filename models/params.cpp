#include "models/params.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <stdexcept>
#include <vector>

namespace trainsim {
namespace {

// The message states the limit, so "nodes: 1e10" reads as too large, not as a wrong sign.
template <class Int>
[[noreturn]] void out_of_range(double value, double limit) {
  std::string bound = value < 0 ? "at least " + std::to_string(std::numeric_limits<Int>::min())
                                : "at most " + std::to_string(static_cast<long long>(limit));
  throw std::invalid_argument("is out of range (" + bound + ")");
}

template <class Int>
Int parse_integer(const std::string& text) {
  Int v{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  constexpr auto kMax = static_cast<double>(std::numeric_limits<Int>::max());
  if (ec == std::errc::result_out_of_range)
    out_of_range<Int>(text.front() == '-' ? -1.0 : 1.0, kMax);
  if (ec == std::errc() && end == text.data() + text.size()) return v;
  // Accept integral values written in scientific notation ("1e6"), up to where a double
  // still holds every whole number exactly (2^53) and the type can hold them.
  double d = 0.0;
  auto [dend, dec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (dec != std::errc() || dend != text.data() + text.size() || !std::isfinite(d) ||
      d != std::floor(d))
    throw std::invalid_argument("is not a whole number");
  constexpr double kLimit = std::min(kMax, 9007199254740992.0);
  if (std::fabs(d) > kLimit) out_of_range<Int>(d, kLimit);
  return static_cast<Int>(d);
}

double parse_real(const std::string& text) {
  double v = 0.0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw std::invalid_argument("is not a number");
  return v;
}

bool parse_bool(const std::string& text) {
  if (text == "true" || text == "yes" || text == "on") return true;
  if (text == "false" || text == "no" || text == "off") return false;
  throw std::invalid_argument("is not true or false");
}

template <class T>
T parse_as(const std::string& text) {
  if constexpr (std::is_same_v<T, std::string>)
    return text;
  else if constexpr (std::is_same_v<T, bool>)
    return parse_bool(text);
  else if constexpr (std::is_same_v<T, int>)
    return parse_integer<int>(text);
  else if constexpr (std::is_same_v<T, long>)
    return parse_integer<long>(text);
  else if constexpr (std::is_same_v<T, double>)
    return parse_real(text);
  else if constexpr (std::is_same_v<T, Seconds>)
    return parse_seconds(text);
  else if constexpr (std::is_same_v<T, Bytes>)
    return parse_bytes(text);
  else if constexpr (std::is_same_v<T, BytesPerSecond>)
    return parse_bandwidth(text);
  else if constexpr (std::is_same_v<T, FlopPerSecond>)
    return parse_flop_rate(text);
  else if constexpr (std::is_same_v<T, Flop>)
    return parse_flop(text);
}

template <class T>
bool is_positive(const T& v) {
  if constexpr (std::is_arithmetic_v<T>)
    return v > 0;
  else
    return v.value() > 0.0;
}

} // namespace

Params::Params(std::string file, std::string section, std::map<std::string, std::string> values,
               std::set<std::string> structured,
               std::map<std::string, std::vector<std::string>> lists)
    : file_(std::move(file)), section_(std::move(section)), values_(std::move(values)),
      structured_(std::move(structured)), lists_(std::move(lists)) {}

std::vector<std::string> Params::get_words(std::string_view key) const {
  if (!has(key)) return (use_default(key, ""), std::vector<std::string>{});
  known_.insert(std::string(key));
  if (auto list = lists_.find(std::string(key)); list != lists_.end()) return list->second;
  std::string text = raw(key);
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream words(text);
  std::vector<std::string> out;
  for (std::string word; words >> word;) out.push_back(word);
  return out;
}

std::string Params::qualified(std::string_view key) const {
  return section_.empty() ? std::string(key) : section_ + "." + std::string(key);
}

const std::string& Params::raw(std::string_view key) const {
  known_.insert(std::string(key));
  auto it = values_.find(std::string(key));
  if (it == values_.end()) {
    // A missing key next to an unknown one that looks like it is a typo: name the typo.
    for (const auto& [written, value] : values_)
      if (!known_.contains(written) && closest_match(written, {std::string(key)}) == key)
        throw InputError(file_, qualified(written), value,
                         "unknown key (did you mean '" + std::string(key) + "'?)");
    fail(key, "is missing");
  }
  if (structured_.contains(it->first)) fail(key, "must be a single value, found " + it->second);
  return it->second;
}

template <class T>
T Params::get(std::string_view key) const {
  const std::string& text = raw(key);
  try {
    return parse_as<T>(text);
  } catch (const std::invalid_argument& e) {
    fail(key, e.what());
  }
}

template <class T>
T Params::get_positive(std::string_view key) const {
  T v = get<T>(key);
  if (!is_positive(v)) fail(key, "must be greater than zero");
  return v;
}

namespace {

// Shortest round-trip text of a double: "%.17g" writes 0.1 as 0.10000000000000001.
std::string number_text(double v) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(v);
}

} // namespace

std::string Params::text_of(double v) { return number_text(v); }
std::string Params::text_of(Seconds v) { return number_text(v.value()) + "s"; }
std::string Params::text_of(Bytes v) { return number_text(v.value()) + "B"; }
std::string Params::text_of(BytesPerSecond v) { return number_text(v.value()) + "Bps"; }
std::string Params::text_of(FlopPerSecond v) { return number_text(v.value()) + "FLOPS"; }
std::string Params::text_of(Flop v) { return number_text(v.value()) + "FLOP"; }

void Params::use_default(std::string_view key, std::string text) const {
  known_.insert(std::string(key));
  defaults_.emplace(std::string(key), std::move(text));
}

std::map<std::string, std::string> Params::resolved() const {
  std::map<std::string, std::string> out = defaults_;
  for (const std::string& key : known_)
    if (auto it = values_.find(key); it != values_.end()) out[key] = it->second;
  for (const auto& [key, items] : lists_)
    if (known_.contains(key)) out[key] = listed(items);
  return out;
}

void Params::reject_unknown(const std::vector<std::string>& also_known) const {
  std::vector<std::string> known(known_.begin(), known_.end());
  known.insert(known.end(), also_known.begin(), also_known.end());
  for (const auto& [key, value] : values_) {
    if (known_.contains(key)) continue;
    throw InputError(file_, qualified(key), structured_.contains(key) ? "" : value,
                     "unknown key" + did_you_mean(key, known));
  }
}

void Params::fail(std::string_view key, std::string_view problem) const {
  auto it = values_.find(std::string(key));
  std::string value = it == values_.end() ? "" : it->second;
  if (auto list = lists_.find(std::string(key)); list != lists_.end())
    value = "[" + listed(list->second) + "]";
  throw InputError(file_, qualified(key), value, problem);
}

template std::string Params::get<std::string>(std::string_view) const;
template bool Params::get<bool>(std::string_view) const;
#define TRAINSIM_PARAMS_INSTANTIATE(T)                                                             \
  template T Params::get<T>(std::string_view) const;                                               \
  template T Params::get_positive<T>(std::string_view) const;
TRAINSIM_PARAMS_INSTANTIATE(int)
TRAINSIM_PARAMS_INSTANTIATE(long)
TRAINSIM_PARAMS_INSTANTIATE(double)
TRAINSIM_PARAMS_INSTANTIATE(Seconds)
TRAINSIM_PARAMS_INSTANTIATE(Bytes)
TRAINSIM_PARAMS_INSTANTIATE(BytesPerSecond)
TRAINSIM_PARAMS_INSTANTIATE(FlopPerSecond)
TRAINSIM_PARAMS_INSTANTIATE(Flop)
#undef TRAINSIM_PARAMS_INSTANTIATE

std::string listed(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

std::string alternatives(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i)
    out.append(i == 0 ? "" : i + 1 == words.size() ? " or " : ", ").append(words[i]);
  return out;
}

std::string one_of(const std::vector<std::string>& names) {
  return "must be one of " + listed(names);
}

} // namespace trainsim
