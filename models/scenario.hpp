// A scenario is three independent parts, as in Calculon: what is trained (ModelSpec), on what
// (SystemSpec) and how it is split (ExecutionSpec). Loading and validation live in
// tools/scenario_loader; these are plain values with documented defaults.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/faults.hpp"
#include "models/pipeline_layout.hpp"
#include "models/reliability.hpp"
#include "models/topology_spec.hpp"
#include "models/units.hpp"

namespace trainsim {

enum class ModelKind {
  transformer, ///< attention + MLP per layer, Megatron-style FLOP accounting
  mlp,         ///< the paper's stacked (sparse) MLP blocks, no attention
};

/// How a layer's kernels are priced (docs/compute-model.md).
enum class ComputeModel {
  roofline,  ///< one roofline kernel per block at matmul_efficiency x peak (the paper's model)
  operators, ///< every operator on its own: shaped GEMMs, flash attention, memory-bound kernels
};

/// How FP8 training scales its tensors (model.fp8_recipe; docs/compute-model.md): each adds
/// the kernels that quantize every linear layer's input, weight and output gradient.
enum class Fp8Recipe {
  none,       ///< not FP8
  tensorwise, ///< one scale per tensor from its current amax (Transformer Engine)
  delayed,    ///< one scale per tensor from its amax history (Transformer Engine's DelayedScaling)
  blockwise,  ///< 1 x 128 activation and 128 x 128 weight blocks (DeepSeek-V3)
  mxfp8,      ///< 32-element blocks with E8M0 scales (OCP MX; Blackwell's tensor cores)
};

/// How an expert layer sends its tokens to their experts and back (execution.moe_dispatcher;
/// Megatron-Core's moe_token_dispatcher_type).
enum class MoeDispatcher {
  alltoall,  ///< each token to the EP ranks of its experts and back: two all-to-alls
  allgather, ///< every EP rank gathers all the group's tokens, and reduce-scatters the outputs
};

/// Multi-head latent attention (DeepSeek-V2, 2024, section 2.1; DeepSeek-V3, 2024, section
/// 2.1.1; Megatron-Core's MLASelfAttention): queries and keys/values are projected down to
/// latents (normed), then up to the heads; each head's key has a part without position
/// (nope) and a rotary part (rope) shared by all heads, computed from the input alongside the
/// key/value latent. Unset (kv_lora_rank 0): standard multi-head (or grouped-query) attention.
struct LatentAttention {
  int q_lora_rank = 0;  ///< the queries' latent; 0: queries projected from the input directly
  int kv_lora_rank = 0; ///< the keys' and values' latent
  int qk_rope_head_dim = 0;
  int qk_nope_head_dim = 0;
  int v_head_dim = 0;
  [[nodiscard]] bool on() const { return kv_lora_rank > 0; }
  [[nodiscard]] int qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
  /// What the down projections give each token: both latents and the rotary key.
  [[nodiscard]] int latent_width() const { return q_lora_rank + kv_lora_rank + qk_rope_head_dim; }
};

/// How the per-operator model runs the attention core (docs/compute-model.md).
enum class AttentionKernel {
  flash,   ///< one fused kernel, no s x s scores in HBM (FlashAttention, 2022 on)
  unfused, ///< Q K^T and scores x V as batched GEMMs, softmax and dropout over the s x s
           ///< scores in HBM: Megatron-LM before flash attention (the 2021-22 papers' runs)
  cudnn,   ///< flash's one fused kernel as Transformer Engine runs it on Hopper and Blackwell:
           ///< cuDNN's, priced by the GPU's own table of it (GpuSpec::cudnn_attention)
};

/// Whether the attention core is one kernel that keeps the s x s scores out of HBM.
[[nodiscard]] constexpr bool fused(AttentionKernel a) { return a != AttentionKernel::unfused; }

/// What pricing per operator brings besides the layers' own kernels, each a key of the model
/// section (docs/scenario-format.md) so that a run can turn one off and provenance shows them.
/// They apply to a transformer priced per operator only: under the roofline (the paper's
/// model) every one is off, whatever these say (ModelSpec's accessors).
struct OperatorProfile {
  bool embedding_kernels = true; ///< the embedding and the LM head with its loss (with a vocab)
  bool optimizer_step = true;    ///< the optimizer's kernels after the passes
  bool gradient_clipping = true; ///< the gradient norm's all-reduce over DP (ZeRO shards it)
  bool nvlink_curve = true;      ///< NCCL's efficiency by message size inside an NVLink domain
  bool uneven_gpus = true;       ///< the GPU's speed_spread: GPUs of unequal sustained rates
  friend bool operator==(const OperatorProfile&, const OperatorProfile&) = default;
};

/// The profile's keys of the model section, each with the member it sets: the loader, the
/// writer and provenance list them from here, in this order.
struct ProfileKey {
  const char* key;
  bool OperatorProfile::*member;
};
inline constexpr std::array<ProfileKey, 5> kProfileKeys{
    {{"embedding_kernels", &OperatorProfile::embedding_kernels},
     {"optimizer_step", &OperatorProfile::optimizer_step},
     {"gradient_clipping", &OperatorProfile::gradient_clipping},
     {"nvlink_curve", &OperatorProfile::nvlink_curve},
     {"uneven_gpus", &OperatorProfile::uneven_gpus}}};

struct ModelSpec {
  std::string name = "model";
  ModelKind kind = ModelKind::transformer;
  int layers = 1;
  long d_model = 1;
  long d_ff = 4;          ///< the MLP's inner size (each expert's, unless moe_d_ff says)
  int heads = 1;          ///< attention heads (transformer only)
  long seq_len = 1;       ///< tokens per sequence
  int experts = 1;        ///< E; the model is sparse (MoE) when E > 1
  int top_k = 1;          ///< experts each token is routed to
  bool gated_mlp = false; ///< SwiGLU-style: three d_model x d_ff matrices per expert instead of two
  /// Each expert's inner size where it differs from the dense MLP's d_ff (Megatron-LM's
  /// moe_ffn_hidden_size; DeepSeek-V3: 2048 against 18432); 0: d_ff.
  long moe_d_ff = 0;
  /// Experts every token visits besides its top_k routed ones, each of expert_d_ff(): one MLP
  /// of shared_experts x expert_d_ff, split over TP and held by every EP rank (DeepSeek-V3: 1;
  /// Megatron-LM's moe_shared_expert_intermediate_size).
  int shared_experts = 0;
  /// The first layers whose MLP is dense (d_ff wide, no routing, no expert parallelism), before
  /// the mixture-of-experts ones (DeepSeek-V3: 3 of 61; Hugging Face's first_k_dense_replace).
  int dense_layers = 0;
  /// The routed experts' GEMMs as one grouped GEMM per weight (Megatron-LM's moe_grouped_gemm,
  /// which the Megatron-Bridge MoE recipes set): every local expert's tiles share the waves of
  /// one kernel. false: one GEMM per expert, one after another (SequentialMLP).
  bool moe_grouped_gemm = true;
  /// The router's logits in FP32 (Megatron-LM's moe_router_dtype: fp32, which Megatron-Bridge's
  /// DeepSeek-V3 configuration sets): its GEMM still takes BF16 operands on the tensor cores
  /// (Transformer Engine's general GEMM with an FP32 output, moe_utils.py since June 2025) and
  /// writes FP32 logits, which the top-k reads; false: logits in the layers' 16-bit type.
  bool router_fp32 = false;
  /// Group-limited routing (Megatron-LM's moe_router_num_groups and moe_router_group_topk;
  /// DeepSeek-V3's node-limited routing, 8 groups and 4 of them a token): the routed experts
  /// in router_groups equal groups of consecutive experts, each token choosing
  /// router_group_topk groups and its top_k experts among theirs. It bounds the nodes a
  /// token's copies reach, which DeepEP's network hop sends once each. 0: no groups.
  int router_groups = 0;
  int router_group_topk = 0;
  /// DeepSeek-V3's multi-token-prediction modules (Megatron-LM's mtp_num_layers), on the last
  /// pipeline stage after the last layer: each norms the hidden state and the next token's
  /// embedding, projects the two (2 d_model -> d_model), runs one more layer of the last
  /// layer's kind and the shared LM head and loss. That stage then holds the embedding too.
  int mtp_layers = 0;
  /// The layers a step runs: the model's and the multi-token-prediction modules'.
  [[nodiscard]] int stack_layers() const { return layers + mtp_layers; }
  int kv_heads = 0; ///< key/value heads (grouped-query attention); 0: as many as `heads`
  /// Each head's width (d_head): queries are heads x head_dim wide, keys and values kv_heads x
  /// head_dim, the attention output projected from heads x head_dim back to d_model
  /// (Megatron-LM's kv_channels; Qwen3 30B-A3B: 32 heads of 128 on d_model 2048). 0:
  /// d_model / heads.
  int head_dim = 0;
  long vocab = 0;     ///< vocabulary: embedding on the first stage, LM head on the last; 0: neither
  bool biases = true; ///< linear layers carry biases (GPT); Llama-style models have none
  bool dropout = true; ///< dropout after attention and MLP (GPT); Llama-style models have none
  bool rotary =
      false; ///< rotary position embedding on q and k; false: learned positions, added once
  /// RMSNorm on each head's queries and keys before attention (Qwen3, OLMo 2).
  bool qk_norm = false;
  LatentAttention mla{}; ///< model.attention_kind: mla and its five sizes
  /// Sliding-window attention: each query sees itself and the window - 1 tokens before it
  /// (GPT-OSS: 128; Mistral 7B: 4096); 0: every earlier token.
  int window = 0;
  /// With a window, every full_attention_every-th layer (the last of each such group) keeps
  /// full causal attention (GPT-OSS: 2, alternating; Gemma 3: 6); 0: every layer windowed.
  int full_attention_every = 0;
  /// A learned logit per head added to each softmax's denominator (GPT-OSS): its parameters
  /// only, the kernels' work is unchanged.
  bool attention_sinks = false;
  /// Only transformers are priced per operator; the MLP-block model is always a roofline.
  ComputeModel compute = ComputeModel::operators;
  AttentionKernel attention = AttentionKernel::flash;
  Bytes bytes_per_word{2.0};              ///< weights and activations (BF16)
  std::string precision = "bf16";         ///< the number format bytes_per_word comes from
  Fp8Recipe fp8_recipe = Fp8Recipe::none; ///< with precision fp8: how it scales

  [[nodiscard]] int kv_heads_or_heads() const { return kv_heads > 0 ? kv_heads : heads; }
  [[nodiscard]] long expert_d_ff() const { return moe_d_ff > 0 ? moe_d_ff : d_ff; }
  OperatorProfile profile{};

  [[nodiscard]] bool per_operator() const {
    return kind == ModelKind::transformer && compute == ComputeModel::operators;
  }
  /// The profile's features as they apply: each on where it is set and the model is priced
  /// per operator.
  [[nodiscard]] OperatorProfile applied_profile() const {
    return per_operator() ? profile : OperatorProfile{false, false, false, false, false};
  }
};

/// Causal flash attention, forward + backward, in FLOP/s as the FlashAttention papers count it
/// (the causal half of the 4 s^2 d_head FLOP per head and sequence, backward 2.5 x forward),
/// at kAttentionSeqLens; one row per head dimension. All zero: not known (the GEMM rate is used).
constexpr std::array<double, 6> kAttentionSeqLens{512, 1024, 2048, 4096, 8192, 16384};
struct AttentionRates {
  std::array<FlopPerSecond, 6> d64{}, d128{};
  std::string estimate; ///< how the rates were estimated where not measured ("": all measured)
  [[nodiscard]] bool known() const { return d64[0].value() > 0 && d128[0].value() > 0; }
};

/// NCCL's efficiency inside an NVLink domain: the fraction of its large-message bus bandwidth
/// a collective reaches, by the bytes each rank passes on per ring step (the message over the
/// ranks). Mid-sized collectives fall well short of it (protocol, chunking and synchronization
/// per step), which a link's bandwidth and latency alone do not give. Points ascending in
/// `step`, held at the ends; none: every collective at the full bandwidth.
struct CollectiveEfficiency {
  struct Point {
    Bytes step;
    double fraction = 1.0;
    friend bool operator==(const Point&, const Point&) = default;
  };
  std::vector<Point> points;
  friend bool operator==(const CollectiveEfficiency&, const CollectiveEfficiency&) = default;
  [[nodiscard]] bool known() const { return !points.empty(); }
  /// Interpolated linearly in log2(step) between the points.
  [[nodiscard]] double at(Bytes step) const;
};

struct GpuSpec {
  std::string name = "h100";
  FlopPerSecond peak{989e12};     ///< dense BF16
  double matmul_efficiency = 0.8; ///< sustained fraction of peak for matmuls
  BytesPerSecond hbm_bandwidth{3.35e12};
  Bytes hbm_capacity{80e9};
  Seconds kernel_latency{4e-6}; ///< launch + sync per compute kernel
  // Figures of the per-operator model (docs/compute-model.md). Unset (as here), an operator
  // is priced like the roofline: GEMMs at peak x matmul_efficiency with no quantization,
  // attention at the same rate, memory-bound kernels at the full HBM bandwidth.
  int sms = 0; ///< streaming multiprocessors: one GEMM tile each per wave; 0 = no quantization
  FlopPerSecond gemm_peak{0};     ///< sustained matmul rate (large, well-shaped GEMMs); 0 =
                                  ///< peak x matmul_efficiency
  /// Under FP8, the sustained rate of the GEMMs that stay BF16 (Operator::wide): the preset's
  /// BF16 gemm_peak; 0 = gemm_peak.
  FlopPerSecond wide_gemm_peak{0};
  AttentionRates flash_attention; ///< measured flash attention throughput
  AttentionRates cudnn_attention; ///< measured cuDNN fused attention throughput (none: unknown)
  double hbm_efficiency = 1.0;    ///< sustained fraction of hbm_bandwidth for streaming kernels
  /// NCCL's collectives over this GPU generation's NVLink (the per-operator model only).
  CollectiveEfficiency nvlink_collectives;
  /// Relative standard deviation of the sustained kernel rate across GPUs of this SKU (the
  /// per-operator model only; models/gpu_speed.hpp); 0: every GPU at the figures above.
  double speed_spread = 0;
  /// Whether its FP8 GEMMs take their operands in every layout, so that an FP8 weight needs no
  /// transposed copy for the backward (Blackwell data-center GPUs: Transformer Engine's
  /// is_non_tn_fp8_gemm_supported(), compute capability 10.x; Hopper's take only TN). A
  /// preset's property, as its MXFP8 support is (models/hardware_presets.cpp).
  bool fp8_any_layout = false;
  /// Between this GPU's memory and its host CPU's, per direction: what activation offloading
  /// (ExecutionSpec::offload_layers) copies at. PCIe 5 x16 unless a preset says otherwise
  /// (models/hardware_presets.cpp).
  BytesPerSecond host_memory_bandwidth{64e9};
  /// The preset the figures start from (models/hardware_presets.hpp), before any override;
  /// "custom" when a scenario gives every figure itself, "" when built in code.
  std::string preset;
  /// The figures that price a step but are estimates, not measurements, one line each (the
  /// report prints them: "estimated preset figure: ...").
  std::vector<std::string> estimates;
};

struct SystemSpec {
  GpuSpec gpu;
  /// The fabric: a registered generator and its parameters, parsed once from the scenario's
  /// `system.topology` (topologies/spec.hpp) or made in code from a struct.
  topo::TopologySpec topology;
};

enum class PipelineSchedule {
  gpipe,       ///< all forwards, then all backwards
  one_f_one_b, ///< PipeDream-Flush: warm-up forwards, then one forward one backward
  interleaved, ///< Megatron's interleaved 1F1B over `interleave` virtual stages per GPU
  /// DeepSeek's DualPipeV (deepseek-ai/DualPipe, dualpipev.py): two chunks per GPU in a V,
  /// stage s and stage 2 pp - 1 - s, one microbatch's forward paired with another's backward
  dualpipev,
};

/// Activation recomputation: which forward work the backward pass runs again.
enum class Recompute {
  none,
  full,      ///< keep each layer's input only, run the layer's forward again in the backward
  selective, ///< run the recompute_modules again (by default the attention core alone,
             ///< Korthikanti et al. 2022); the rest is kept
};

/// The parts of a layer that selective recomputation runs again, as Megatron-Core names them
/// (TransformerConfig.recompute_modules, megatron/core/transformer/transformer_config.py):
/// each keeps only its input and runs its forward again just before its backward.
enum class RecomputeModule : std::uint8_t {
  core_attn,      ///< the attention core (its scores, or flash attention's statistics)
  layernorm,      ///< the two norms before the attention and the MLP: their outputs
  mla_up_proj,    ///< latent attention's up projections and rotary: Q, K and V
  moe_act,        ///< the routed experts' activation: the experts' second GEMM's input
  mlp,            ///< a dense layer's whole MLP: its hidden activations
  shared_experts, ///< the shared experts' MLP: their hidden activations
};
/// A set of modules: bit 1 << module for each.
using RecomputeModules = std::uint8_t;
constexpr RecomputeModules module_bit(RecomputeModule m) {
  return static_cast<RecomputeModules>(1u << static_cast<unsigned>(m));
}

/// How many splits a block's kernels and TP collectives are cut into under tp_overlap:
/// Transformer Engine's default num_splits for its pipelined GEMM + reduce-scatter overlap
/// (initialize_ub in transformer_engine/pytorch/module/base.py, 2024). Its ring-exchange
/// all-gathers use tp splits; one figure keeps the fast mode's folded passes short
/// (docs/compute-model.md).
inline constexpr int kTpOverlapSplits = 4;

struct ExecutionSpec {
  int dp = 1;
  int tp = 1; ///< Megatron's TP axis (the paper's N_K): each matmul's output dimension split
  /// The paper's second TP axis N_J (docs/paper-model.md): each matmul's input dimension split
  /// too, its partial sums reduced over this axis. A TP block is tp x tp_2d ranks, this axis
  /// innermost. Modelled for the MLP-block model (models/step_program.cpp, "2-D tensor
  /// parallelism").
  int tp_2d = 1;
  int pp = 1;
  /// Expert parallelism: the ranks an MoE layer's experts are spread over, taken from the
  /// weight replicas (DP x CP; Megatron-Core carves its expert mesh from the same ranks).
  int ep = 1;
  /// Expert tensor parallelism (Megatron-Core's --expert-tensor-parallel-size): each routed
  /// expert split over etp ranks; 0: over tp, as the attention. Any other count folds the
  /// experts' groups over the TP x CP x DP ranks of a stage (MoE Parallel Folding): ETP groups
  /// of etp consecutive ranks there, EP groups of every etp-th (experts_fold()).
  int etp = 0;
  /// Megatron-LM's moe_expert_capacity_factor: each expert takes at most this many times its
  /// balanced share of the routed tokens and drops the rest; 0: dropless (every token kept).
  double moe_capacity_factor = 0;
  /// Megatron-LM's moe_pad_expert_input_to_capacity: each expert's input padded to its
  /// capacity, so its GEMMs and all-to-alls carry capacity rows whatever the routing.
  bool moe_pad_to_capacity = false;
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  /// Routing imbalance between the EP ranks: the busiest rank's routed tokens over the
  /// balanced share, minus one (MaxVio, Wang et al. 2024, arXiv:2408.15664, taken over EP
  /// ranks); the ranks' shares are spread evenly from 1 - it to 1 + it and placed by
  /// moe_imbalance_seed (models/moe_load.hpp). 0: balanced, as the published benchmarks force.
  double moe_imbalance = 0;
  int moe_imbalance_seed = 0;
  /// Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm): one more warm-up
  /// forward, then each steady-state step runs a forward and a backward of two microbatches
  /// together, layer by layer, each one's all-to-alls on an EP stream beside the other's
  /// kernels (models/step_program_pairs.cpp).
  bool ep_overlap = false;
  /// Megatron-Core's --delay-wgrad-compute under ep_overlap: a backward layer's expert block
  /// computes its input gradients, starts its dispatch all-to-all, and only then its weight
  /// gradients, which run beside it (models/step_program_pairs.cpp).
  bool delay_wgrad_compute = false;
  /// Context parallelism: each sequence split over `cp` ranks, which gather one another's keys
  /// and values for the attention core (Llama 3's all-gather CP) and otherwise hold the same
  /// weights, so they reduce gradients with the DP replicas (weight_replicas()).
  int cp = 1;
  long global_batch = 1; ///< sequences per step
  long micro_batch = 1;  ///< sequences per microbatch
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int interleave = 1; ///< virtual pipeline stages per GPU (schedule interleaved)
  /// Interleaved: microbatches that visit every chunk before the next ones start (Megatron-
  /// Core's microbatch_group_size_per_vp_stage); 0: pp. A group of more than pp lets the
  /// microbatches per pipeline be other than a multiple of pp.
  int microbatch_group = 0;
  /// The pipeline split (models/stage_layout.hpp): the first and last stages' layers (0: an
  /// even share), or the embedding and the loss each counted as a layer, or every virtual
  /// stage's layers written out (models/pipeline_layout.hpp).
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  bool embedding_as_layer = false;
  bool loss_as_layer = false;
  PipelineLayout pipeline_layout{};
  bool sequence_parallel = false; ///< TP all-reduces split into reduce-scatter + all-gather
  /// Megatron's scatter/gather pipeline sends: each TP rank sends 1/tp of the activation and
  /// the receiving TP group all-gathers it over its links (sequence parallelism sends 1/tp
  /// anyway, with nothing to gather).
  bool pp_scatter_gather = false;
  /// Gradients accumulate and are reduced over DP in FP32 (Megatron-LM's
  /// --accumulate-allreduce-grads-in-fp32; Llama 3's FSDP), not at the model's precision.
  bool fp32_gradients = false;
  /// Each weight-gradient GEMM accumulates into the gradient buffer itself (Megatron-LM's
  /// gradient-accumulation fusion, 2022 on). false: it writes a fresh gradient that a separate
  /// kernel adds to the accumulated one, every microbatch (Megatron-LM before 2022-02, PyTorch
  /// autograd's AccumulateGrad): models/operators.cpp prices that add.
  bool grad_accumulation_fusion = true;
  int zero = 0; ///< sharded over DP: 1 optimizer state, 2 + gradients, 3 + parameters
  Recompute recompute = Recompute::none;
  /// Full recomputation of only the first this-many layers of each model chunk, the rest
  /// keeping their activations (Megatron-LM's --recompute-method block
  /// --recompute-num-layers); 0: every layer.
  int recompute_layers = 0;
  /// Full recomputation of every this-many-th layer of each model chunk, from its first, the
  /// rest keeping their activations (PyTorch's activation checkpointing of every k-th block);
  /// 0: as recompute_layers says.
  int recompute_every = 0;
  /// Whether the layer at `chunk_layer` of its chunk runs its forward again before its
  /// backward.
  [[nodiscard]] bool recomputes(int chunk_layer) const {
    if (recompute != Recompute::full) return false;
    if (recompute_every > 0) return chunk_layer % recompute_every == 0;
    return recompute_layers == 0 || chunk_layer < recompute_layers;
  }
  /// Activation offloading: the first this-many layers of the model send the activations
  /// they keep for the backward to the host CPU's memory during the forward and fetch them back
  /// for the backward, on copy streams beside the kernels (Megatron-Core's
  /// --cpu-offloading-num-layers, activations only, through Transformer Engine's CPU offload
  /// context); 0: none.
  int offload_layers = 0;
  /// A chunk layer that recomputes only if every layer does.
  [[nodiscard]] int kept_layer() const { return recompute_every > 0 ? 1 : recompute_layers; }
  /// What `recompute: selective` runs again (Megatron-Core's default: the attention core).
  RecomputeModules recompute_modules = module_bit(RecomputeModule::core_attn);
  /// The modules that run again: recompute_modules under `recompute: selective`, else none.
  [[nodiscard]] RecomputeModules selective_modules() const {
    return recompute == Recompute::selective ? recompute_modules : RecomputeModules{0};
  }
  /// Whether selective recomputation runs `module` again.
  [[nodiscard]] bool recomputes_module(RecomputeModule module) const {
    return (selective_modules() & module_bit(module)) != 0;
  }
  bool dp_overlap = false; ///< gradient collectives start during the last backward pass
  /// A one-step delayed update: the previous step's gradient reduction, and with ZeRO-1/2 its
  /// parameter all-gather, run alongside this step's passes, which use weights one step stale:
  /// the paper's DP all-reduce hidden behind the whole step. The staleness is the one
  /// ZeRO-Offload's delayed parameter update accepts to hide its CPU optimizer step (Ren et
  /// al., USENIX ATC 2021); here it hides the reduction.
  bool delayed_update = false;
  /// ZeRO-1/2's all-gather of the updated parameters runs at the next step's start, bucket by
  /// bucket beside the forward passes, each layer's first forward waiting for its bucket
  /// (Megatron-LM's --overlap-param-gather); false: after the optimizer step.
  bool param_gather_overlap = false;
  /// ZeRO-3's per-layer collectives run on the DP stream: each layer's parameter all-gather
  /// while the layer before it in the pass computes, its gradient reduce-scatter after its
  /// backward, the step waiting for the last at its end (the prefetch of PyTorch FSDP2 and of
  /// Megatron-FSDP); false: each blocks the layer.
  bool zero3_prefetch = false;
  /// ZeRO's parameter all-gathers move FP8 copies of the layers' weights (Megatron-LM's
  /// --fp8-param-gather, which Megatron-Bridge's FP8 precision configs turn on): a byte per
  /// parameter plus the recipe's scales (gathered_parameter_word(), models/workload.hpp). The
  /// embedding and LM head, which stay BF16, are gathered at the model's word.
  bool fp8_param_gather = false;
  /// Each block's TP collectives pipelined with its kernels in tp_overlap_splits splits, on a
  /// stream of their own (Megatron-LM's --tp-comm-overlap through Transformer Engine).
  bool tp_overlap = false;
  /// The splits of tp_overlap (Transformer Engine's num_splits, which its userbuffers config
  /// sets per GEMM): each split of a collective is a call of its own and pays its latency, so
  /// fewer splits suit collectives whose latency binds, more those whose last split shows.
  int tp_overlap_splits = kTpOverlapSplits;
  /// Each kernel's launch runs while the kernels before it do (launches queued ahead, as
  /// asynchronous launch and CUDA Graphs let them): a kernel takes the longer of its work and
  /// its launch latency, not their sum, the paper's latency, a bound of its own. false: the
  /// latency adds to every kernel.
  bool launch_overlap = false;
  /// Gradient bytes per DP collective with dp_overlap (and per parameter gather with
  /// param_gather_overlap); unset: Megatron-LM's default (dp_bucket_bytes(), models/workload.hpp).
  std::optional<Bytes> dp_bucket{};
  std::string tp_collective = "ring";
  std::string dp_collective = "ring";
  std::string ep_collective = "pairwise";
  Bytes optimizer_bytes_per_param{12.0}; ///< FP32 master weights + Adam moments

  [[nodiscard]] int gpus() const { return dp * tp_ranks() * pp * cp; }
  /// The ranks each layer's weights are split over: both TP axes.
  [[nodiscard]] int tp_ranks() const { return tp * tp_2d; }
  /// The ranks that hold the same weights, which reduce (and with ZeRO shard) their gradients
  /// and optimizer state together: the DP replicas times the CP ranks of each.
  [[nodiscard]] int weight_replicas() const { return dp * cp; }
  /// The ranks each routed expert is split over: etp, or tp when unset.
  [[nodiscard]] int expert_tp() const { return etp > 0 ? etp : tp; }
  /// Whether the experts' groups fold over TP x CP x DP (etp other than tp): EP then spans a
  /// stage's ranks, TP ranks included, instead of the weight replicas at one TP index.
  [[nodiscard]] bool experts_fold() const { return expert_tp() != tp; }
  /// The ranks that hold the same experts and reduce their gradients together (EDP).
  [[nodiscard]] int expert_replicas() const {
    return experts_fold() ? tp * weight_replicas() / (ep * expert_tp()) : weight_replicas() / ep;
  }
  [[nodiscard]] long microbatches() const {
    return global_batch / (static_cast<long>(dp) * micro_batch);
  }
  [[nodiscard]] bool shard_optimizer() const { return zero >= 1; }
  /// Model chunks (virtual pipeline stages) per GPU: `interleave` under the interleaved
  /// schedule, two under DualPipeV, otherwise one.
  [[nodiscard]] int chunks() const {
    if (schedule == PipelineSchedule::dualpipev) return 2;
    return schedule == PipelineSchedule::interleaved ? interleave : 1;
  }
  /// DualPipeV's V: chunk 0 of stage s is virtual stage s, chunk 1 is 2 pp - 1 - s, so a
  /// microbatch goes down the stages and back up, and the first stage also holds the last
  /// virtual stage. Otherwise Megatron's order, chunk x pp + s.
  [[nodiscard]] bool v_shape() const { return schedule == PipelineSchedule::dualpipev; }
  [[nodiscard]] int virtual_stage(int stage, int chunk) const {
    return v_shape() && chunk == 1 ? 2 * pp - 1 - stage : chunk * pp + stage;
  }
  /// The stage and chunk of virtual stage `v`: virtual_stage()'s inverse.
  [[nodiscard]] std::pair<int, int> stage_and_chunk(int v) const {
    if (v_shape() && v >= pp) return {2 * pp - 1 - v, 1};
    return {v % pp, v / pp};
  }
  /// The stage that holds the last virtual stage (the LM head, the loss and any MTP modules).
  [[nodiscard]] int head_stage() const { return v_shape() ? 0 : pp - 1; }
  /// Whether the chunk's passes run up the stages (its forward from stage s to s - 1).
  [[nodiscard]] bool chunk_reversed(int chunk) const { return v_shape() && chunk == 1; }
  /// The interleaved schedule's microbatch group: microbatch_group, or pp when unset.
  [[nodiscard]] int group() const { return microbatch_group > 0 ? microbatch_group : pp; }
  /// The fewest microbatches a shortened step may keep and still run the schedule's every
  /// phase: a group (at least pp), and twice pp for DualPipeV, which needs that many.
  [[nodiscard]] long shortest_microbatches() const {
    long m = group() > pp ? group() : pp;
    return v_shape() ? 2 * m : m;
  }
  /// Whether each pipeline receive is followed by a TP all-gather of the 1/tp shares
  /// (pp_scatter_gather; sequence parallelism keeps the shards, one rank has nothing to gather).
  [[nodiscard]] bool gathers_pp_receives() const {
    return pp_scatter_gather && !sequence_parallel && tp > 1;
  }
};

struct Scenario {
  std::string file; ///< where it was loaded from, for messages
  std::string
      input_hash; ///< of the text it was parsed from (tools/provenance); "" when built in code
  ModelSpec model;
  SystemSpec system;
  ExecutionSpec execution;
  FaultSpec faults; ///< degraded components (models/faults.hpp); none by default
  /// What stops a long run and what a restart costs (models/reliability.hpp): read by
  /// `trainsim goodput`, not by a step.
  ReliabilitySpec reliability;
};

std::string to_string(PipelineSchedule s);
std::string to_string(ModelKind k);
std::string to_string(ComputeModel c);
std::string to_string(AttentionKernel a);
std::string to_string(Recompute r);
std::string to_string(RecomputeModule m);
/// The modules of a set, in RecomputeModule's order.
std::vector<RecomputeModule> modules_of(RecomputeModules set);
std::string to_string(Fp8Recipe r);
std::string to_string(MoeDispatcher d);

} // namespace trainsim
