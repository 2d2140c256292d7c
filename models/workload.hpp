// What one GPU computes, moves and holds for one microbatch through one layer, derived from
// the model and the parallel split. Shared by the simulator (which replays these costs as
// events), the closed form (which sums them) and the frontier (which prices its plans with
// them, models/frontier_plan.cpp); no SimGrid here.
#pragma once

#include <vector>

#include "models/scenario.hpp"
#include "models/stage_layout.hpp"

namespace trainsim {

/// A layer's dimensions as real numbers, the form every cost below is priced from. A
/// scenario's are whole (layer_shape()); the frontier's come from its scaling laws, where
/// d_model = sqrt(N / (2 ff L)) keeps the parameter count N exact.
struct LayerShape {
  ModelKind kind = ModelKind::transformer;
  double d_model = 1;
  double d_ff = 4;    ///< per routed expert
  double seq_len = 1; ///< the attention's sequence (transformer only)
  int experts = 1;
  int top_k = 1; ///< experts each token visits
  bool gated_mlp = false;
  Bytes bytes_per_word{2.0};
  /// The shared experts' inner size, all of them together (shared_experts x d_ff): an MLP every
  /// token runs beside its routed experts, split over TP only; 0: none.
  double shared_ff = 0;
  double kv_width = 0; ///< keys' (and values') width, kv_heads x d_head; 0: d_model (MHA)
  double q_width = 0;  ///< queries' (and the attention output's) width, heads x d_head; 0: d_model
  /// Attention-score elements per token an unfused attention keeps for its backward (heads x
  /// seq_len, 5 bytes each: softmax output, dropout mask and output); 0 under flash attention.
  double score_elements = 0;
  bool dropout = true;  ///< a 1-byte mask after the attention and after the MLP
  bool qk_norm = false; ///< queries and keys normalized per head: their input kept for backward
  /// Latent attention (models/scenario.hpp), over `heads` heads; off: the widths above.
  LatentAttention mla{};
  double heads = 0;   ///< attention heads (latent attention's widths are per head)
  double window = 0;  ///< sliding-window attention's window (tokens); 0: the whole sequence
  bool sinks = false; ///< a learned softmax logit per head (its parameters only)
  /// The expert rows a GPU runs per routed token (routed_share()): 1 dropless.
  double routed_share = 1;
  /// Bytes a linear layer keeps of its input for its weight gradient: 1 under FP8
  /// (Transformer Engine keeps the quantized copy), else 0, the word (bytes_per_word).
  double linear_input = 0;
};
LayerShape layer_shape(const ModelSpec& model);
/// The model's shape with the execution's routed_share().
LayerShape layer_shape(const ModelSpec& model, const ExecutionSpec& exec);

/// The rows the experts run, and the all-to-alls carry, per routed token (tokens x top_k) under
/// balanced routing: 1 dropless; with a capacity factor c, min(c, 1) (each expert keeps at most
/// c x its share, and a balanced share is 1 x it), or c when inputs are padded to capacity.
double routed_share(const ModelSpec& model, const ExecutionSpec& exec);

/// What sets a model's layer apart from its others: a dense MLP (one of its first
/// dense_layers, where the others' are experts) and full attention (where a window leaves
/// every full_attention_every-th layer whole).
struct LayerKind {
  bool dense = false;
  bool full_attention = false;
  friend bool operator==(const LayerKind&, const LayerKind&) = default;
};
/// The kind of the model's layer `layer` (0: its first; from model.layers on, a
/// multi-token-prediction module's, of the last layer's kind).
LayerKind layer_kind(const ModelSpec& model, int layer);
/// Each kind the step's layers (ModelSpec::stack_layers) are of, with how many of them, in a
/// fixed order.
std::vector<std::pair<LayerKind, int>> layer_kinds(const ModelSpec& model);

/// One kind's layers as a model and an execution of their own, whose every layer is of that
/// kind: a dense one's MLP of d_ff, with no experts, none shared, and so no expert
/// parallelism; a full one's attention without the window. Every cost below priced from it is
/// one of those layers'.
struct LayerSpec {
  ModelSpec model;
  ExecutionSpec exec;
};
LayerSpec layer_spec(const ModelSpec& model, const ExecutionSpec& exec, LayerKind kind);

/// One GPU's share of every layer. A scenario's (gpu_share()) has whole tokens and one TP
/// axis; the frontier's search moves tokens per replica continuously and adds the paper's
/// second TP axis N_J (docs/closed-form.md, "One plan"), as a scenario's execution.tp_2d does.
struct GpuShare {
  double tokens = 1; ///< of one microbatch on this GPU's DP replica
  int tp_1d = 1;     ///< N_K: Megatron's TP axis, all-reducing d_model-wide activations
  int tp_2d = 1;     ///< N_J: the paper's second TP axis, d_ff-wide activations
  int ep = 1;        ///< expert parallelism: the GPU holds experts / ep of each layer's experts
  int etp = 0;       ///< the ways each routed expert is split; 0: tp() (the attention's)
  /// The ways each weight matrix is split: every per-GPU cost divides by it.
  [[nodiscard]] double tp() const { return static_cast<double>(tp_1d) * tp_2d; }
  [[nodiscard]] double expert_tp() const { return etp > 0 ? etp : tp(); }
};
GpuShare gpu_share(const ModelSpec& model, const ExecutionSpec& exec);

/// One compute kernel group of a layer (e.g. attention, MLP) on one GPU, forward direction.
/// Backward costs twice the FLOP and twice the HBM traffic (input and weight gradients).
struct KernelCost {
  Flop flop;
  Bytes hbm; ///< weight-shard reads plus activation reads and writes
};

/// What a router keeps per token and expert: an FP32 probability and a one-byte routing-map
/// flag (Megatron-Core's probs and routing_map).
inline constexpr double kRouterStateBytes = 4.0 + 1.0;

/// Per GPU, per microbatch, per layer, forward pass. A transformer layer is
/// [attention, TP all-reduce, MLP, TP all-reduce]; an MLP block is [MLP, TP all-reduce].

struct LayerCosts {
  KernelCost attention; ///< zero for ModelKind::mlp
  KernelCost mlp;
  Bytes tp_allreduce; ///< size of each tensor all-reduced over the TP group (tokens x d_model,
                      ///< its 1/tp_2d columns under 2-D TP)
  /// What the attention block's TP collectives move on its input side: tp_allreduce, or under
  /// latent attention its latents (tokens x latent_width()), which it gathers instead of the
  /// input (models/step_program.cpp).
  Bytes attention_input;
  int tp_allreduces = 0; ///< all-reduces per layer per direction
  /// 2-D TP: the MLP's hidden activation all-reduced over the tp_2d axis between its two
  /// matmuls (tokens x d_ff / tp), once per layer and direction; 0 without a second axis.
  Bytes tp2_allreduce;
  Bytes pp_activation; ///< what one GPU sends across a stage boundary per microbatch (1/tp of
                       ///< the activation with sequence parallelism)
  Bytes cp_kv;         ///< keys and values all-gathered over the CP group per layer and pass (the
                       ///< gathered size, every CP rank's share of this TP rank's heads); 0: no CP
  /// An expert layer's routed tokens, what each of its all-to-alls sends per rank:
  /// tp_allreduce x top_k x routed_share(); 0 in a dense layer.
  Bytes ep_dispatch;
  /// The router's state for the tokens: kRouterStateBytes per token and expert; 0 when dense.
  Bytes ep_routing;
  double params = 0;   ///< parameters of this layer held by this GPU
  double active_params = 0; ///< parameters one token touches in this layer, per GPU
};

LayerCosts layer_costs(const LayerShape& layer, const GpuShare& share);
LayerCosts layer_costs(const ModelSpec& model, const ExecutionSpec& exec);

/// FLOP and HBM bytes of `passes` passes of one microbatch (a forward is one pass, a backward
/// two: input and weight gradients) through the MLP blocks of `layers` layers on one GPU.
/// Every pass reads the GPU's expert weights once; each matmul reads its input and writes its
/// output. layer_costs().mlp is one forward pass through one layer.
KernelCost mlp_cost(const LayerShape& layer, const GpuShare& share, double passes = 1,
                    double layers = 1);

/// Parameters one GPU holds for `layers` layers, by the group that reduces their gradients:
/// dense ones over DP (attention; the experts too when ep = 1, as every DP rank then holds all
/// of them), expert ones (ep > 1, or folded) over the ranks that hold the same experts (EDP:
/// dp / ep, or tp x dp / ep folded).
struct GpuParams {
  double dense = 0;
  double experts = 0;
  [[nodiscard]] double total() const { return dense + experts; }
};
GpuParams params_on_gpu(const LayerShape& layer, const GpuShare& share, double layers = 1);

/// Gradient bytes one GPU of pipeline stage `stage` reduces per step: over its DP group
/// (dense: attention, or everything without expert parallelism) and over the GPUs holding
/// the same experts (experts: DP / EP of them).
struct GradientBytes {
  Bytes dense;
  Bytes experts;
};
GradientBytes gradient_bytes(const Scenario& scenario, int stage);
/// Bytes per gradient: 4 with fp32_gradients, else the model's word.
Bytes gradient_word(const ModelSpec& model, const ExecutionSpec& exec);
/// A layer weight's bytes in ZeRO's parameter all-gathers: the model's word, or with
/// fp8_param_gather one FP8 byte plus its recipe's scales: per tensor (tensorwise, delayed:
/// none to count), a 4-byte scale per 128 x 128 block (blockwise, DeepSeek-V3's weights), an
/// E8M0 byte per 32 elements (mxfp8, the OCP MX format).
Bytes gathered_parameter_word(const ModelSpec& model, const ExecutionSpec& exec);
/// A layer weight's bytes in HBM as Transformer Engine keeps it in FP8 for a step, one copy
/// for the forward's GEMMs (row-wise) and one for the input gradient's (column-wise): under
/// tensorwise or delayed scaling a byte and its transpose's byte, but one byte on a GPU whose
/// FP8 GEMMs take every layout (Blackwell: TE's is_non_tn_fp8_gemm_supported(), compute
/// capability 10.x, needs no transpose); blockwise and mxfp8 keep both copies with their
/// scales. 0 when the model is not FP8.
Bytes fp8_weight_bytes(const ModelSpec& model, const GpuSpec& gpu);
/// Megatron-LM's default bucket: max(40M, 1M x DP size) parameters
/// (megatron/core/distributed/distributed_data_parallel_config.py, `bucket_size`: "larger DP
/// sizes need larger buckets to ensure collectives do not become latency-bound").
double default_bucket_parameters(const ExecutionSpec& exec);
/// The bytes of gradients per DP bucket: execution.dp_bucket, or default_bucket_parameters()
/// of gradient words.
Bytes dp_bucket_bytes(const ModelSpec& model, const ExecutionSpec& exec);

/// Total model FLOP of one training step (forward + backward, no recomputation): the
/// numerator of MFU.
Flop model_flop_per_step(const ModelSpec& model, const ExecutionSpec& exec);

/// The whole model's parameters, as model cards count them: every layer's attention and MLP
/// (each routed expert, the shared ones), the embedding and the LM head (untied); `active`,
/// those one token's forward uses (top_k routed experts). Norms, biases and the router are
/// left out (each under 0.1% of a layer).
struct ModelParameters {
  double total = 0;
  double active = 0;
};
ModelParameters model_parameters(const ModelSpec& model);

/// Tokens processed per step.
double tokens_per_step(const ModelSpec& model, const ExecutionSpec& exec);

/// Time of one kernel on one GPU: the slower of its FLOP at sustained throughput and its
/// HBM traffic (roofline), plus one kernel launch latency.
Seconds kernel_time(const KernelCost& cost, const GpuSpec& gpu);
/// The two sides of that roofline: FLOP at the sustained matmul rate, bytes at HBM bandwidth.
Seconds compute_time(Flop flop, const GpuSpec& gpu);
Seconds hbm_time(Bytes bytes, const GpuSpec& gpu);

struct MemoryUse {
  Bytes weights, gradients, optimizer, activations;
  Bytes fp8_copies; ///< Transformer Engine's cached FP8 weights beside BF16 ones (not saved)
  [[nodiscard]] Bytes total() const {
    return weights + gradients + optimizer + activations + fp8_copies;
  }
};

/// What one GPU keeps besides its share of each layer: its stage's layers, the microbatches
/// whose activations wait for their backward, and how ZeRO shards its state: a dense
/// parameter's over dp, an expert's over the EDP ranks that hold it (params_on_gpu()).
struct StageResidency {
  double layers = 1;
  double vocabulary_params = 0; ///< the embedding's or LM head's on this GPU (dense, over DP)
  double in_flight = 1;         ///< microbatches whose activations are kept
  double dp = 1;                ///< data-parallel ranks (a real number while the frontier searches)
  /// The ranks that hold the same experts (ExecutionSpec::expert_replicas()); 0: dp / ep.
  double expert_dp = 0;
  int zero = 0;                 ///< 1 shards optimizer state, 2 also gradients, 3 also weights
  Bytes optimizer_bytes_per_param{12.0};
  Bytes gradient_bytes_per_param{0.0}; ///< 0: the model's word
  bool sequence_parallel = true;       ///< the norms' and dropouts' activations split over TP too
  bool recompute = false;              ///< full: only each layer's input is kept
  /// Selective recomputation's modules (ExecutionSpec::recomputes_module()), which keep only
  /// their inputs; none unless `recompute: selective`.
  RecomputeModules again = 0;
  [[nodiscard]] bool recomputes(RecomputeModule m) const { return (again & module_bit(m)) != 0; }
  /// A delayed update keeps the previous step's whole gradients while it reduces them.
  bool delayed_update = false;
  /// ZeRO-3: layers whose parameters are held whole while they compute (zero3_prefetch: the
  /// layer computing and the next, whose gather runs beside it).
  int gathered_layers = 0;
  /// What a layer parameter takes (the embedding and LM head take the model's word): held
  /// whole, and as ZeRO-3's shard (0: the model's word either way); and beside a weight held
  /// whole, Transformer Engine's cached FP8 copy (0: none). memory_per_stage() sets them from
  /// the FP8 recipe (fp8_weight_bytes()).
  Bytes whole_weight{0.0}, shard_weight{0.0}, fp8_copy{0.0};
};
MemoryUse memory_use(const LayerShape& layer, const GpuShare& share,
                     const StageResidency& residency);

/// HBM needed on a GPU of each pipeline stage: its layers, vocabulary and peak of activations
/// held under the schedule (models/stage_layout.hpp), by part.
/// The GPU decides how FP8 weights are kept (fp8_weight_bytes()).
std::vector<MemoryUse> memory_per_stage(const ModelSpec& model, const ExecutionSpec& exec,
                                        const GpuSpec& gpu);
/// The activations model layer `layer` keeps for its backward, per microbatch, on its GPU:
/// what activation offloading (ExecutionSpec::offload_layers) copies out and back.
Bytes layer_activations(const ModelSpec& model, const ExecutionSpec& exec, int layer);
/// "weights 4.8 GB, gradients 9.61 GB, optimizer 14.4 GB, activations 42.6 GB" and the FP8
/// weight copies where there are any: the parts the report and the memory refusal list.
std::string memory_parts(const MemoryUse& use);
/// HBM needed on the most loaded GPU: of memory_per_stage(), the largest.
MemoryUse memory_per_gpu(const ModelSpec& model, const ExecutionSpec& exec, const GpuSpec& gpu);

} // namespace trainsim
