// A scenario section's keys, each declared once: the member it sets, how its value is read and
// checked, and when a scenario file states it. The loader reads a section from its table, the
// writer writes it and provenance lists it, so the three cannot disagree about a key (as
// topologies/fields.hpp does for the topology's keys). models/model_keys.cpp and
// models/execution_keys.cpp hold the tables.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <vector>

#include "models/params.hpp"
#include "models/scenario.hpp"

namespace trainsim {

/// A key's value: its text as a scenario file writes it, and what it is, for result.json.
struct KeyValue {
  enum class Kind : std::uint8_t { integer, flag, text, number };
  Kind kind = Kind::text;
  std::string text;
  long integer = 0;
  bool flag = false;
  double number = 0; ///< a quantity in SI units
};

inline KeyValue integer_value(long v) {
  return {KeyValue::Kind::integer, std::to_string(v), v, false};
}
inline KeyValue flag_value(bool v) { return {KeyValue::Kind::flag, Params::text_of(v), 0, v}; }
inline KeyValue text_value(std::string v) { return {KeyValue::Kind::text, std::move(v), 0, false}; }
/// A quantity (a unit type or a plain fraction): its text with its unit, its SI value.
template <class Q>
KeyValue number_value(Q v) {
  double si = 0;
  if constexpr (std::is_arithmetic_v<Q>)
    si = static_cast<double>(v);
  else
    si = v.value();
  return {KeyValue::Kind::number, Params::text_of(v), 0, false, si};
}
/// Whether two values are the same value.
inline bool same_value(const KeyValue& a, const KeyValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
  case KeyValue::Kind::integer:
    return a.integer == b.integer;
  case KeyValue::Kind::flag:
    return a.flag == b.flag;
  case KeyValue::Kind::number:
    return a.number == b.number;
  case KeyValue::Kind::text:
    break;
  }
  return a.text == b.text;
}

/// How `trainsim validate`'s random scenarios draw a key (tools/study/random_scenarios.cpp):
/// where `applies`, with a chance of one in `one_in`, one of `values` read as a file would give
/// it. The loader's rules then accept or refuse the scenario, as they do a user's file.
template <class Spec>
struct RandomDraw {
  int one_in = 0;
  std::vector<std::string> values;
  std::function<bool(const Spec&)> applies = [](const Spec&) { return true; };
};

template <class Spec>
struct SectionKey {
  std::string key;
  /// Sets the member from `section` (its value is the default), checking it.
  std::function<void(const Params& section, Spec& spec)> read;
  /// The member's value as the run uses it; none for a key that only stands for others or is
  /// unset.
  std::function<std::optional<KeyValue>(const Spec& spec)> value;
  /// Whether a scenario file states it; where not, reading the file gives the same value.
  std::function<bool(const Spec& spec)> written;
  /// Its name in result.json where that differs (a quantity's with its SI unit); "" = `key`.
  std::string result_key{};
  /// Whether and how the random scenarios draw it (none: they leave it at its default).
  std::optional<RandomDraw<Spec>> draw{};
  [[nodiscard]] const std::string& result_name() const {
    return result_key.empty() ? key : result_key;
  }
};

/// A key every scenario file states.
template <class Spec>
bool always_written(const Spec& /*spec*/) {
  return true;
}

/// A positive whole number with a default.
template <class Spec, class T>
SectionKey<Spec> count_key(const char* key, T Spec::*member,
                           std::function<bool(const Spec&)> written = always_written<Spec>) {
  return {key, [=](const Params& p, Spec& s) { s.*member = p.get_positive_or(key, s.*member); },
          [=](const Spec& s) { return std::optional(integer_value(s.*member)); },
          std::move(written)};
}

/// A switch, true or false, with a default.
template <class Spec>
SectionKey<Spec> switch_key(const char* key, bool Spec::*member) {
  return {key, [=](const Params& p, Spec& s) { s.*member = p.get_or(key, s.*member); },
          [=](const Spec& s) { return std::optional(flag_value(s.*member)); },
          always_written<Spec>};
}

/// `key`, drawn by the random scenarios as `draw` says.
template <class Spec>
SectionKey<Spec> drawn(SectionKey<Spec> key, RandomDraw<Spec> draw) {
  key.draw = std::move(draw);
  return key;
}

using ModelKey = SectionKey<ModelSpec>;
using ExecutionKey = SectionKey<ExecutionSpec>;
/// A GPU's figures, over a preset's or on their own (system.gpu; `preset` and `name` are the
/// section's frame, read by the loader). A figure's `written` is unused: the writer states the
/// ones that differ from the preset's.
using GpuKey = SectionKey<GpuSpec>;
/// The run's reliability (`reliability:`, models/reliability.hpp); `written` where given.
using ReliabilityKey = SectionKey<ReliabilitySpec>;

/// Every key of each section, in the order the loader reads them and the writer writes them.
const std::vector<ModelKey>& model_keys();
const std::vector<ExecutionKey>& execution_keys();
const std::vector<GpuKey>& gpu_keys();
const std::vector<ReliabilityKey>& reliability_keys();

/// Every key of a section read and checked over `spec`'s values; the section's other keys are
/// left to the caller.
template <class Spec>
Spec read_keys_over(const std::vector<SectionKey<Spec>>& keys, const Params& section, Spec spec) {
  for (const SectionKey<Spec>& k : keys) k.read(section, spec);
  return spec;
}

/// A section: every key read and checked over the defaults, unknown ones rejected with a
/// "did you mean" among the table's keys (an optional key that was not given is not among
/// the keys the section saw read).
template <class Spec>
Spec read_keys(const std::vector<SectionKey<Spec>>& keys, const Params& section) {
  Spec spec = read_keys_over(keys, section, Spec{});
  std::vector<std::string> names;
  for (const SectionKey<Spec>& k : keys) names.push_back(k.key);
  section.reject_unknown(names);
  return spec;
}

} // namespace trainsim
