// The kernel times of one training step, from one place: models/step_program.cpp replays them and
// models/closed_form.cpp sums them, so fast mode, fine mode and the bound price the same
// work. A transformer is priced per operator (models/compute_model.hpp); the paper's MLP
// blocks, and a transformer with `model.compute: roofline`, keep the roofline of
// models/workload.hpp: one kernel per block at matmul_efficiency x peak plus one launch.
#pragma once

#include "models/compute_model.hpp"
#include "models/scenario.hpp"
#include "models/workload.hpp"

namespace trainsim {

/// One block (attention or MLP) of one layer, one microbatch, on one GPU: its forward kernels
/// and its backward kernels (input and weight gradients, and what recomputation runs again).
struct BlockTime {
  KernelTime forward, backward;
  /// The part of `backward` that the block's TP collective need not wait for: its first
  /// weight's gradient (Operator::beside_collective).
  KernelTime beside_collective;
  /// Of `forward` and `backward`, the kernels whose work follows the routed tokens the GPU's
  /// experts receive (Operator::routed; the whole block for the roofline's experts): what
  /// routing imbalance scales (models/moe_load.hpp).
  KernelTime routed_forward, routed_backward;
  /// Of an MLP block's `backward`, its weights' gradient kernels, and of those the routed ones:
  /// what delay_wgrad_compute runs after the expert block's dispatch (per-operator pricing;
  /// zero under the roofline).
  KernelTime weight_gradients, routed_weight_gradients;
  /// Kernels that run once a step, in the chunk's first forward (Operator::per_step: FP8
  /// weight casts), apart from `forward`.
  KernelTime per_step;
};

struct LayerTimes {
  BlockTime attention; ///< zero for ModelKind::mlp
  BlockTime mlp;
};

LayerTimes layer_times(const Scenario& scenario);

/// What one layer of a kind (layer_kind()) moves and runs, recomputed or not: the step
/// program's unit (models/step_program.cpp).
struct LayerPlan {
  LayerKind kind;
  bool recomputed = false; ///< its forward runs again before its backward (full recomputation)
  LayerCosts costs;
  LayerTimes times;
  bool experts = false; ///< its MLP sends its tokens to their experts over EP and back
};
/// A layer of `kind` of the scenario's model; one not `recomputed` under block recomputation
/// (recompute_layers) runs as without recomputation.
LayerPlan layer_plan(const Scenario& scenario, LayerKind kind, bool recomputed);

/// Per microbatch: the embedding on the first virtual stage, and the LM head with the loss on
/// the last; zero without a vocabulary.
BlockTime embedding_time(const Scenario& scenario);
BlockTime head_time(const Scenario& scenario);

/// The optimizer step a GPU of pipeline stage `stage` runs once, after the gradient sync:
/// Adam over its parameters, or over its ZeRO shard of them. Zero on the roofline path.
KernelTime optimizer_time(const Scenario& scenario, int stage);

/// Gradient clipping's global norm: the squares' sum of a ZeRO-sharded gradient (zero >= 1) is
/// all-reduced over the ranks that share the weights before the optimizer may scale the update
/// (Megatron-LM's clip_grad_norm; its model-parallel part is not modelled): one FP32 scalar.
/// Per-operator models only, which have an optimizer step.
inline constexpr Bytes kNormBytes{4.0};
bool clips_over_dp(const Scenario& scenario);

/// NCCL's efficiency over NVLink that the collectives of this scenario run at: the GPU
/// preset's curve on the per-operator path, none (plain alpha-beta, as the paper prices them)
/// for the MLP blocks and the roofline. The simulator and the bound both take it from here.
const CollectiveEfficiency* collective_efficiency(const Scenario& scenario);

/// FLOP of one step, whole cluster. `model`: forward + backward of every layer and the logits,
/// attention counted in full (4 s^2 d_model per sequence and layer forward, as PaLM and
/// Megatron count it) and no recomputation: the numerator of MFU. `hardware`: `model` plus
/// the forward work recomputation runs again (Megatron's eq. 3 convention): of HFU.
struct StepFlop {
  Flop model, hardware;
};
StepFlop step_flop(const ModelSpec& model, const ExecutionSpec& exec);

} // namespace trainsim
