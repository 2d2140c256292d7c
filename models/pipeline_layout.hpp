// A pipeline split written layer by layer, in Megatron-Core's notation
// (--pipeline-model-parallel-layout), so that a recipe's uneven virtual stages can be given as
// the recipe gives them.
#pragma once

#include <string>
#include <vector>

namespace trainsim {

/// The virtual stages of a pipeline in the order a microbatch passes them: Megatron-Core's,
/// virtual stage chunk x pp + stage, or DualPipeV's V (ExecutionSpec::virtual_stage).
/// Notation: `t` a transformer layer, `E` the embedding, `L` the loss, `m` a multi-token-
/// prediction module, `|` the end of a virtual stage, `(..)*n` and `x*n` n repeats; spaces
/// and commas are cosmetic. "Et*4|(t*4|)*14tmL" is 16 virtual stages: the embedding with 4
/// layers, 14 of 4 layers, then one layer, the module and the loss.
struct PipelineLayout {
  std::string text;        ///< as written; empty: not set
  std::vector<int> layers; ///< transformer layers of each virtual stage
  int mtp = 0;             ///< modules, all on the last virtual stage
  [[nodiscard]] bool empty() const { return layers.empty(); }
  [[nodiscard]] int stages() const { return static_cast<int>(layers.size()); }
  [[nodiscard]] int total_layers() const;
};

/// The layout `text` denotes, or why it denotes none (`problem`, one sentence). Beyond the
/// notation trainsim places the embedding at the start of the first virtual stage, the loss
/// at the end of the last, and the modules on the last (Megatron-Core can also give the
/// modules a stage of their own: refused).
struct ParsedLayout {
  PipelineLayout layout;
  std::string problem;
};
ParsedLayout parse_pipeline_layout(const std::string& text);

} // namespace trainsim
