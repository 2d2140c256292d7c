// The operators one GPU runs for one microbatch of a transformer, as shapes and byte counts:
// what runs, not how fast (models/compute_model.hpp prices them on a GPU). Every operator of a
// Megatron-style layer is listed on its own, after the tensor-parallel split, in each
// direction; docs/compute-model.md gives the list and its formulas.
#pragma once

#include <cstdint>
#include <vector>

#include "models/scenario.hpp"

namespace trainsim {

enum class OperatorKind : std::uint8_t {
  gemm,      ///< a matrix multiplication on the Tensor Cores
  attention, ///< the flash-attention core: softmax(Q K^T) V without the s x s scores in HBM
  memory,    ///< an element-wise or normalization kernel: its time is its HBM traffic
};

/// One GEMM, Y (m x n) = X (m x k) W (k x n): m x n outputs, each a k-long dot product.
struct GemmShape {
  double m = 0, n = 0, k = 0;
  double batch = 1; ///< independent products of this shape in one strided-batched kernel
};

struct Operator {
  const char* name = "";
  OperatorKind kind = OperatorKind::memory;
  GemmShape gemm;   ///< gemm: the shape of one kernel
  double count = 1; ///< identical kernels (a GEMM per local expert), each with its own launch
  Flop flop;   ///< of all `count` kernels: 2 m n k per GEMM; attention as executed (causal half)
  Bytes bytes; ///< HBM read + written by all `count` kernels
  double head_dim = 0; ///< attention: what its measured rate depends on
  double seq_len = 0;
  AttentionKernel kernel = AttentionKernel::flash; ///< attention: whose measured rates price it
  /// Backward: the gradient of the block's first weight (QKV's, fc1's: its GEMM and its
  /// accumulation). It runs after the input gradient that the block's TP collective carries and
  /// no later kernel of the pass reads it, so TP overlap runs it beside that collective
  /// (Transformer Engine's bulk wgrad overlap; models/step_program.cpp).
  bool beside_collective = false;
  /// A GEMM that stays in BF16 when the layers run in FP8: the LM head (Megatron-LM's output
  /// layer is a plain ColumnParallelLinear, outside Transformer Engine's FP8 autocast, unless
  /// fp8_output_proj is set), priced at GpuSpec::wide_gemm_peak.
  bool wide = false;
  /// Its work follows the routed tokens this GPU's experts receive (their GEMMs, activation and
  /// quantization, the sort into runs per expert), which routing imbalance makes uneven
  /// (models/moe_load.hpp); not their weights' gradient accumulation.
  bool routed = false;
  /// A forward kernel that recomputation runs again in the backward.
  bool recomputed = false;
  /// Runs once a step, in the first forward of its model chunk, not every microbatch: an FP8
  /// weight's cast, which Transformer Engine caches across the step's microbatches (Megatron
  /// passes is_first_microbatch to its linear layers).
  bool per_step = false;
  /// Of `bytes`, the transposed FP8 copy a per-tensor-scaled quantization writes for the
  /// backward GEMM on a GPU whose FP8 GEMMs take only TN operands (Hopper). One whose GEMMs
  /// take every layout (GpuSpec::fp8_any_layout: Blackwell) writes none: Transformer Engine
  /// then reads the row-wise data for both (quantizer.cpp: with_transpose = columnwise_usage
  /// && !is_non_tn_fp8_gemm_supported).
  Bytes transpose_bytes;
};

using Operators = std::vector<Operator>;

/// A block's kernels per direction. `backward` holds the input- and weight-gradient kernels
/// and, with recomputation, the forward work run again.
struct BlockOperators {
  Operators forward, backward;
};

/// A transformer layer: [norm, QKV, (rotary), attention, out-projection, residual] and
/// [norm, up(+gate), activation, down, residual], each block followed by its TP collective.
struct LayerOperators {
  BlockOperators attention, mlp;
};

/// One layer, one microbatch, on one GPU of the TP group (recomputation included).
LayerOperators layer_operators(const ModelSpec& model, const ExecutionSpec& exec);

/// The token (and learned position) embedding of the first pipeline stage; empty when the
/// model has no vocabulary.
BlockOperators embedding_operators(const ModelSpec& model, const ExecutionSpec& exec);

/// The final norm, the LM head GEMM and the fused softmax + cross-entropy of the last stage,
/// and each multi-token-prediction module's kernels besides its layer (embedding, norms,
/// projection, the head and loss again); empty when the model has no vocabulary.
BlockOperators head_operators(const ModelSpec& model, const ExecutionSpec& exec);

/// The mixed-precision optimizer step on `params` parameters (this GPU's shard), kernel by
/// kernel as Megatron-LM runs it: with fp16 loss scaling, unscale the fp32 gradients and check
/// them for inf/nan; the gradient norm for clipping; Adam over the fp32 master weights and
/// moments (exec.optimizer_bytes_per_param); the master weights copied to the model's
/// precision; the fp32 gradient buffer zeroed for the next step.
Operators optimizer_operators(double params, const ModelSpec& model, const ExecutionSpec& exec);

/// Parameters of the embedding (first stage) or of the LM head (last stage) on one GPU:
/// vocab x d_model / tp, plus the learned positions on the first stage.
double embedding_params(const ModelSpec& model, const ExecutionSpec& exec);
double head_params(const ModelSpec& model, const ExecutionSpec& exec);
/// What multi-token prediction adds to the last stage on one GPU: the embedding's copy the
/// modules share (when the first stage is another), and each module's projection
/// (2 d_model x d_model / tp); 0 without it.
double mtp_params(const ModelSpec& model, const ExecutionSpec& exec);

Flop flop_of(const Operators& ops);
Bytes bytes_of(const Operators& ops);

} // namespace trainsim
