// What one GPU computes and moves for one microbatch through one layer, derived from the
// model and the parallel split. Shared by the simulator (which replays these costs as events)
// and the closed form (which sums them); no SimGrid here.
#pragma once

#include "models/scenario.hpp"

namespace trainsim {

/// One compute kernel group of a layer (e.g. attention, MLP) on one GPU, forward direction.
/// Backward costs twice the FLOP and twice the HBM traffic (input and weight gradients).
struct KernelCost {
  Flop flop;
  Bytes hbm; ///< weight-shard reads plus activation reads and writes
};

/// Per GPU, per microbatch, per layer, forward pass. A transformer layer is
/// [attention, TP all-reduce, MLP, TP all-reduce]; an MLP block is [MLP, TP all-reduce].
struct LayerCosts {
  KernelCost attention; ///< zero for ModelKind::mlp
  KernelCost mlp;
  Bytes tp_allreduce;   ///< size of each tensor all-reduced over the TP group (tokens x d_model)
  int tp_allreduces = 0;///< all-reduces per layer per direction
  Bytes pp_activation;  ///< one activation (or its gradient) crossing a stage boundary
  double params = 0;    ///< parameters of this layer held by this GPU
  double active_params = 0; ///< parameters one token touches in this layer, per GPU
};

LayerCosts layer_costs(const ModelSpec& model, const ExecutionSpec& exec);

/// Layers on pipeline stage `stage` (the first layers % pp stages take one more).
int stage_layers(int layers, int pp, int stage);

/// Layers in each of the exec.chunks() chunks of pipeline stage `stage`: layers / (pp x v)
/// when interleaved (the loader makes that divide), otherwise stage_layers().
int chunk_layers(const ModelSpec& model, const ExecutionSpec& exec, int stage);

/// Gradient bytes one GPU of pipeline stage `stage` reduces per step: over its DP group
/// (dense: attention, or everything without expert parallelism) and over the GPUs holding
/// the same experts (experts: DP / EP of them).
struct GradientBytes {
  Bytes dense;
  Bytes experts;
};
GradientBytes gradient_bytes(const Scenario& scenario, int stage);

/// Total model FLOP of one training step (forward + backward, no recomputation): the
/// numerator of MFU.
Flop model_flop_per_step(const ModelSpec& model, const ExecutionSpec& exec);

/// Tokens processed per step.
double tokens_per_step(const ModelSpec& model, const ExecutionSpec& exec);

/// Time of one kernel on one GPU: the slower of its FLOP at sustained throughput and its
/// HBM traffic (roofline), plus one kernel launch latency.
Seconds kernel_time(const KernelCost& cost, const GpuSpec& gpu);

struct MemoryUse {
  Bytes weights, gradients, optimizer, activations;
  [[nodiscard]] Bytes total() const { return weights + gradients + optimizer + activations; }
};
/// HBM needed on the most loaded GPU (pipeline stage 0, which holds the most layers and,
/// under 1F1B, the most microbatches in flight).
MemoryUse memory_per_gpu(const ModelSpec& model, const ExecutionSpec& exec);

} // namespace trainsim
