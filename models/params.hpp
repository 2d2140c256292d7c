// Strict reading of one flat section of user input (a YAML mapping, a generator's parameters,
// a --set override). Every value is text until a typed get<T>() parses it; every problem
// becomes an InputError naming the file, the dotted key and the value. Keys that no get()
// asked for are rejected by reject_unknown() with a "did you mean" among the keys that were.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/error.hpp"
#include "models/units.hpp"

namespace trainsim {

class Params {
public:
  Params() = default;
  /// `section` prefixes keys in messages ("system.topology"); may be empty. Keys in
  /// `structured` hold a mapping or list where a single value belongs; `values` has their text.
  /// `lists` holds the items of the structured keys that are lists of plain values, which
  /// only get_words() reads.
  Params(std::string file, std::string section, std::map<std::string, std::string> values,
         std::set<std::string> structured = {},
         std::map<std::string, std::vector<std::string>> lists = {});

  [[nodiscard]] bool has(std::string_view key) const { return values_.contains(std::string(key)); }
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] std::string qualified(std::string_view key) const;

  /// Required value. T: std::string, bool, int, long, double, or a unit type from units.hpp.
  template <class T>
  [[nodiscard]] T get(std::string_view key) const;
  /// Optional value with a default used when the key is absent.
  template <class T>
  [[nodiscard]] T get_or(std::string_view key, T fallback) const {
    return has(key) ? get<T>(key) : (use_default(key, text_of(fallback)), fallback);
  }
  /// Like get(), and the value must be > 0.
  template <class T>
  [[nodiscard]] T get_positive(std::string_view key) const;
  template <class T>
  [[nodiscard]] T get_positive_or(std::string_view key, T fallback) const {
    return has(key) ? get_positive<T>(key) : (use_default(key, text_of(fallback)), fallback);
  }

  /// A list of words: a YAML list of plain values, or one value whose words are separated by
  /// commas or spaces (as `--set` and the writer give it); empty when the key is absent.
  [[nodiscard]] std::vector<std::string> get_words(std::string_view key) const;

  /// Throws for the first key that no get() asked for; `also_known` are keys read elsewhere
  /// (sub-sections), offered as suggestions too.
  void reject_unknown(const std::vector<std::string>& also_known = {}) const;
  /// Throws an InputError about `key` with the value as written (or "" when absent).
  [[noreturn]] void fail(std::string_view key, std::string_view problem) const;

  [[nodiscard]] const std::map<std::string, std::string>& values() const { return values_; }
  /// Every key read so far, with its value as written or, when absent, the default a get_or()
  /// used (a number with its unit in SI base units, which parses back to the same value): the
  /// section as it was resolved, for reports to say what was simulated.
  [[nodiscard]] std::map<std::string, std::string> resolved() const;

  // A default's text, as resolved() gives it.
  static std::string text_of(const std::string& v) { return v; }
  static std::string text_of(bool v) { return v ? "true" : "false"; }
  static std::string text_of(int v) { return std::to_string(v); }
  static std::string text_of(long v) { return std::to_string(v); }
  static std::string text_of(double v);
  static std::string text_of(Seconds v);
  static std::string text_of(Bytes v);
  static std::string text_of(BytesPerSecond v);
  static std::string text_of(FlopPerSecond v);
  static std::string text_of(Flop v);

private:
  void use_default(std::string_view key, std::string text) const;
  [[nodiscard]] const std::string& raw(std::string_view key) const;

  std::string file_;
  std::string section_;
  std::map<std::string, std::string> values_;
  std::set<std::string> structured_;
  std::map<std::string, std::vector<std::string>> lists_;
  mutable std::set<std::string> known_;
  mutable std::map<std::string, std::string>
      defaults_; ///< keys absent from values_, as their defaults
};

/// "a, b, c".
std::string listed(const std::vector<std::string>& names);
/// "a or b", "a, b or c".
std::string alternatives(const std::vector<std::string>& words);
/// "must be one of a, b, c".
std::string one_of(const std::vector<std::string>& names);

/// The option `key` names, `fallback` when absent; any other text is rejected with the options.
template <class Enum>
Enum choose(const Params& p, const std::string& key, Enum fallback,
            const std::vector<std::pair<std::string, Enum>>& options) {
  auto text = p.get_or<std::string>(key, "");
  if (text.empty()) return fallback;
  std::vector<std::string> names;
  for (const auto& [name, value] : options) {
    if (name == text) return value;
    names.push_back(name);
  }
  p.fail(key, one_of(names) + did_you_mean(text, names));
}

} // namespace trainsim
