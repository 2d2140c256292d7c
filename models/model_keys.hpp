// The model section's keys, each declared once (models/section_keys.hpp).
#pragma once

#include <vector>

#include "models/scenario.hpp"
#include "models/section_keys.hpp"

namespace trainsim {

using ModelKey = SectionKey<ModelSpec>;

/// Every key, in the order the loader reads them and the writer writes them.
const std::vector<ModelKey>& model_keys();

/// The model section: every key read and checked, unknown ones rejected.
ModelSpec read_model(const Params& section);

} // namespace trainsim
