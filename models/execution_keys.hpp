// The execution section's keys, each declared once: the member it sets, how its value is read
// and checked, and when a scenario file states it. The loader reads the section from this
// table, the writer writes it and provenance lists it, so the three cannot disagree about a
// key (as topologies/fields.hpp does for the topology's keys).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/params.hpp"
#include "models/scenario.hpp"

namespace trainsim {

/// A key's value: its text as a scenario file writes it, and what it is, for result.json.
struct KeyValue {
  enum class Kind : std::uint8_t { integer, flag, text };
  Kind kind = Kind::text;
  std::string text;
  long integer = 0;
  bool flag = false;
};

struct ExecutionKey {
  std::string key;
  /// Sets the member from `section` (its value is the default), checking it.
  std::function<void(const Params& section, ExecutionSpec& e)> read;
  /// The member's value; none for a key that only stands for others (`collective`) or is unset.
  std::function<std::optional<KeyValue>(const ExecutionSpec& e)> value;
  /// Whether a scenario file states it; where not, reading the file gives the same value.
  std::function<bool(const ExecutionSpec& e)> written;
};

/// Every key, in the order the loader reads them and the writer writes them.
const std::vector<ExecutionKey>& execution_keys();

/// The execution section: every key read and checked, unknown ones rejected.
ExecutionSpec read_execution(const Params& section);

} // namespace trainsim
