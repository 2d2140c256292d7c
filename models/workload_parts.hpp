// What models/workload.cpp and models/workload_memory.cpp share: the attention's widths and
// the vocabulary a stage holds. Internal to models/.
#pragma once

#include "models/workload.hpp"

namespace trainsim::workload_parts {

/// The queries' width (heads x d_head): d_model unless the model sets its heads' width.
double query_width(const LayerShape& l);
/// The keys' (and values') width: kv_width under grouped-query attention or a set head width,
/// else d_model.
double key_width(const LayerShape& l);
/// The LM head's parameters on a GPU of the last stage, with what multi-token prediction adds.
double head_stage_params(const ModelSpec& m, const ExecutionSpec& e);
/// The embedding (first stage) and LM head (last stage) parameters a GPU of `stage` holds.
double vocabulary_params(const ModelSpec& m, const ExecutionSpec& e, int stage);

} // namespace trainsim::workload_parts
