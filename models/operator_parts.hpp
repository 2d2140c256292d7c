// The parts the operator lists are built from (models/operators.cpp,
// models/attention_operators.cpp): a layer's sizes on one GPU and the kernels every block
// shares. Internal to models/.
#pragma once

#include "models/operators.hpp"

namespace trainsim::operator_parts {

// The sizes the operators of a layer are built from, on one GPU after the TP split.
struct Dims {
  double tokens = 0;      ///< T = micro_batch x seq_len / cp
  double norm_tokens = 0; ///< tokens the norms, dropout and residual adds see: T / tp with
                          ///< sequence parallelism, else T (each TP rank repeats them)
  double d = 0;           ///< d_model
  double q = 0;           ///< query (and attention output) width: heads x d_head / tp
  double kv = 0;          ///< key and value width each: kv_heads x d_head / tp
  double head_dim = 0, seq = 0;
  double v = 0;           ///< latent attention: the values' (and output's) width, heads x v_head_dim / tp
  double local_heads = 0; ///< heads / tp
  double window = 0;      ///< sliding-window attention's window, at most seq; 0: none
  /// FP8: HBM bytes per element to quantize a linear layer's BF16 input, weight or output
  /// gradient (fp8_quantize_bytes()); 0: the GEMMs take BF16 as they are.
  double quantize = 0;
  /// Of `quantize`, the transposed copy's byte that a GPU with FP8 GEMMs in every layout does
  /// not write (Operator::transpose_bytes): tensorwise and delayed scaling's; blockwise and
  /// MXFP8 scale the two directions' blocks apart, so both copies stay.
  double transpose = 0;
  /// FP8: the weights' casts run once a step (Operator::per_step), where the weights stay on
  /// the GPU between microbatches (ZeRO below 3; ZeRO-3 gathers them again every microbatch).
  bool weights_cast_once = false;
  double ff = 0;        ///< a routed expert's inner size / etp
  double shared_ff = 0; ///< a shared expert's inner size / tp (the shared experts keep tp)
  double w = 0;      ///< bytes per word
  double routed = 0; ///< expert inputs: T x top_k (T / tp x top_k when the experts fold)
  double local_experts = 1;
  double experts = 1; ///< E: the router's logits per token
  double top_k = 1;
  double routed_share = 1; ///< expert rows per routed token (routed_share(), models/workload.hpp)
  bool grouped = true; ///< the local experts' GEMMs grouped into one kernel per weight
  bool router_fp32 = false;
  bool exchanges = false; ///< the tokens go to other EP ranks and come back (ep > 1)
  /// The tokens a rank permutes from and unpermutes into, over its own: ep under the
  /// all-gather dispatcher (the EP group's, gathered), else 1.
  double gathered = 1;
  /// Bytes per parameter of the separate gradient-accumulation add, each microbatch: 0 with
  /// grad_accumulation_fusion, else the fresh gradient read (w) and the sum read and written.
  double accumulate = 0;
  bool biases = false;
  /// What selective recomputation runs again (ExecutionSpec::recomputes_module()): none
  /// unless `recompute: selective`.
  RecomputeModules again = 0;
  [[nodiscard]] bool recomputes(RecomputeModule m) const { return (again & module_bit(m)) != 0; }
};

Dims dims(const ModelSpec& m, const ExecutionSpec& e);

Operator make(const char* name, OperatorKind kind);
Operator gemm(const char* name, GemmShape g, double count, double w);
Operator memory(const char* name, double bytes, double kernels = 1.0);
void accumulate(const char* name, double params, double tensors, const Dims& x, BlockOperators& b);
void linear(const char* name, const char* dgrad, const char* wgrad, GemmShape g, double count,
            double w, BlockOperators& b);

struct LinearNames {
  const char *forward, *dgrad, *wgrad, *accumulate;
  bool first = false; ///< the block's first weight, whose gradient runs beside its collective
};
void weight_linear(const LinearNames& n, GemmShape g, double count, const Dims& x,
                   BlockOperators& b);
void norm(const Dims& x, BlockOperators& b);
/// A layer's norm before its attention or MLP: norm(), run again under `layernorm`.
void layer_norm(const Dims& x, BlockOperators& b);
/// The block's forward kernels from `first` on as recomputation runs them again (marked
/// Operator::recomputed), but for the once-a-step FP8 weight casts, whose cache serves them.
Operators forward_again(const BlockOperators& b, size_t first);
/// Selective recomputation of a module: forward_again() from `first`, at the backward's end.
void run_again(BlockOperators& b, size_t first);
void residual(const Dims& x, const ModelSpec& m, BlockOperators& b);

/// A mixture-of-experts block's own kernels (models/moe_operators.cpp), forward and backward:
/// `route`, before the experts, scores the tokens and sorts them by expert; `combine`, after
/// them, puts the expert outputs back in token order, weighted by their scores.
void route(const Dims& x, BlockOperators& b);
void combine(const Dims& x, BlockOperators& b);

/// The attention block (models/attention_operators.cpp): standard, grouped-query or latent.
BlockOperators attention_block(const Dims& x, const ModelSpec& m);

} // namespace trainsim::operator_parts
