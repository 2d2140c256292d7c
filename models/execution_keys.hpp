// The execution section's keys, each declared once (models/section_keys.hpp).
#pragma once

#include <vector>

#include "models/scenario.hpp"
#include "models/section_keys.hpp"

namespace trainsim {

using ExecutionKey = SectionKey<ExecutionSpec>;

/// Every key, in the order the loader reads them and the writer writes them.
const std::vector<ExecutionKey>& execution_keys();

/// The execution section: every key read and checked, unknown ones rejected.
ExecutionSpec read_execution(const Params& section);

} // namespace trainsim
