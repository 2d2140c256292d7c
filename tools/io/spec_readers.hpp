// Readers of the scenario's flat sections, shared by tools/io/scenario_loader.cpp: the model,
// a GPU's figures (over a preset's or on their own) and the small helpers every section uses.
// Each rejection is one InputError naming the file, the key and the value
// (docs/scenario-format.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "models/error.hpp"
#include "models/params.hpp"
#include "models/scenario.hpp"

namespace trainsim {

/// "a, b, c".
std::string listed(const std::vector<std::string>& names);
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

/// The `model` section; every key checked, unknown ones rejected.
ModelSpec read_model(const Params& p);

/// Overrides of a preset's figures (or every figure of a custom GPU), checked one by one;
/// `p` keeps its other keys for the caller.
GpuSpec read_gpu_figures(const Params& p, GpuSpec g);

/// `execution.recompute`: false/none, true/full or selective.
Recompute read_recompute(const Params& p);

} // namespace trainsim
