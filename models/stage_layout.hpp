// Which layers each pipeline stage and model chunk holds, and how many layer activations a
// stage keeps at its peak under its schedule.
#pragma once

#include <string>

#include "models/scenario.hpp"

namespace trainsim {

/// Layers on pipeline stage `stage` of an even split (the first layers % pp stages take one
/// more). The frontier's plans and the default layout use it.
int stage_layers(int layers, int pp, int stage);

/// Layers of model chunk `chunk` on pipeline stage `stage` (virtual stage chunk x pp + stage
/// as Megatron numbers them; DualPipeV's V: ExecutionSpec::virtual_stage). The layouts, as
/// Megatron-LM's core splits a model:
/// - pipeline_layout, every virtual stage's layers written out (models/pipeline_layout.hpp);
/// - first_stage_layers / last_stage_layers (0: not set) fix those stages' layers; the other
///   stages share the rest evenly; each stage's layers divide evenly over its chunks;
/// - embedding_as_layer / loss_as_layer count the embedding and the loss as one layer each:
///   the layers plus those slots divide evenly over the pp x chunks virtual stages, and the
///   first (last) virtual stage holds one layer less;
/// - otherwise layers / (pp x chunks) per chunk when interleaved, stage_layers() when not;
/// - the last virtual stage also holds the model's mtp_layers, after its own.
/// The scenario must have passed layout_problem().
int chunk_layers(const ModelSpec& model, const ExecutionSpec& exec, int stage, int chunk);

/// The layers of every chunk of the stage.
int stage_layer_count(const ModelSpec& model, const ExecutionSpec& exec, int stage);

/// The model's index of the chunk's first layer: the layers of every virtual stage before it.
int chunk_first_layer(const ModelSpec& model, const ExecutionSpec& exec, int stage, int chunk);
/// Of the chunk's (or the stage's) layers, those among the model's first dense_layers.
int chunk_dense_layers(const ModelSpec& model, const ExecutionSpec& exec, int stage, int chunk);
int stage_dense_layers(const ModelSpec& model, const ExecutionSpec& exec, int stage);

/// Whether the chunk's forward (`forward`) or backward on `stage` takes its input from another
/// stage: not at the pipeline's ends, nor where the neighbouring virtual stage is the stage's
/// own (the bottom of DualPipeV's V, where one chunk hands the other its output in memory).
bool receives_from_stage(const ExecutionSpec& exec, int stage, int chunk, bool forward);

/// Why the layout keys cannot split this model, naming the key; empty when they can.
struct LayoutProblem {
  std::string key, value, why;
  [[nodiscard]] bool empty() const { return key.empty(); }
};
LayoutProblem layout_problem(const ModelSpec& model, const ExecutionSpec& exec);

/// The most layer activations (one layer, one microbatch each) stage `stage` keeps at once:
/// the peak, over its schedule's order of passes, of the layers of the forward passes begun
/// less those of the backward passes done.
double peak_held_layers(const ModelSpec& model, const ExecutionSpec& exec, int stage);

} // namespace trainsim
