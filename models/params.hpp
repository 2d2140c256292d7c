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
#include <vector>

#include "models/error.hpp"
#include "models/units.hpp"

namespace trainsim {

class Params {
public:
  Params() = default;
  /// `section` prefixes keys in messages ("system.topology"); may be empty. Keys in
  /// `structured` hold a mapping or list where a single value belongs; `values` has their text.
  Params(std::string file, std::string section, std::map<std::string, std::string> values,
         std::set<std::string> structured = {});

  [[nodiscard]] bool has(std::string_view key) const { return values_.contains(std::string(key)); }
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] std::string qualified(std::string_view key) const;

  /// Required value. T: std::string, bool, int, long, double, or a unit type from units.hpp.
  template <class T>
  [[nodiscard]] T get(std::string_view key) const;
  /// Optional value with a default used when the key is absent.
  template <class T>
  [[nodiscard]] T get_or(std::string_view key, T fallback) const {
    return has(key) ? get<T>(key) : (known_.insert(std::string(key)), fallback);
  }
  /// Like get(), and the value must be > 0.
  template <class T>
  [[nodiscard]] T get_positive(std::string_view key) const;
  template <class T>
  [[nodiscard]] T get_positive_or(std::string_view key, T fallback) const {
    return has(key) ? get_positive<T>(key) : (known_.insert(std::string(key)), fallback);
  }

  /// Throws for the first key that no get() asked for; `also_known` are keys read elsewhere
  /// (sub-sections), offered as suggestions too.
  void reject_unknown(const std::vector<std::string>& also_known = {}) const;
  /// Throws an InputError about `key` with the value as written (or "" when absent).
  [[noreturn]] void fail(std::string_view key, std::string_view problem) const;

  [[nodiscard]] const std::map<std::string, std::string>& values() const { return values_; }

private:
  [[nodiscard]] const std::string& raw(std::string_view key) const;

  std::string file_;
  std::string section_;
  std::map<std::string, std::string> values_;
  std::set<std::string> structured_;
  mutable std::set<std::string> known_;
};

} // namespace trainsim
