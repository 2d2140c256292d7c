#include "models/operators.hpp"

#include <algorithm>

#include "models/workload.hpp"

namespace trainsim {
namespace {

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
  double ff = 0;     ///< an expert's inner size / tp
  double w = 0;      ///< bytes per word
  double routed = 0; ///< expert inputs: T x top_k
  double local_experts = 1;
  /// Bytes per parameter of the separate gradient-accumulation add, each microbatch: 0 with
  /// grad_accumulation_fusion, else the fresh gradient read (w) and the sum read and written.
  double accumulate = 0;
  bool biases = false;
};

Dims dims(const ModelSpec& m, const ExecutionSpec& e) {
  Dims x;
  double tp = e.tp;
  x.tokens = static_cast<double>(e.micro_batch) * static_cast<double>(m.seq_len) / e.cp;
  x.norm_tokens = e.sequence_parallel ? x.tokens / tp : x.tokens;
  x.d = static_cast<double>(m.d_model);
  x.head_dim = m.head_dim > 0 ? m.head_dim : x.d / m.heads;
  x.q = (m.head_dim > 0 ? m.heads * x.head_dim : x.d) / tp;
  x.kv = m.kv_heads_or_heads() * x.head_dim / tp;
  x.local_heads = m.heads / tp;
  if (m.mla.on()) { // keys as wide as queries; values and the output their own width
    x.head_dim = m.mla.qk_head_dim();
    x.q = x.kv = x.local_heads * m.mla.qk_head_dim();
    x.v = x.local_heads * m.mla.v_head_dim;
  }
  x.seq = static_cast<double>(m.seq_len);
  x.ff = static_cast<double>(m.expert_d_ff()) / tp;
  x.w = m.bytes_per_word.value();
  x.routed = x.tokens * m.top_k;
  x.local_experts = static_cast<double>(m.experts) / e.ep;
  if (!e.grad_accumulation_fusion) x.accumulate = x.w + 2.0 * gradient_word(m, e).value();
  x.biases = m.biases;
  return x;
}

Operator make(const char* name, OperatorKind kind) {
  Operator op;
  op.name = name;
  op.kind = kind;
  return op;
}

Operator gemm(const char* name, GemmShape g, double count, double w) {
  Operator op = make(name, OperatorKind::gemm);
  op.gemm = g;
  op.count = count;
  op.flop = Flop(2.0 * g.m * g.n * g.k * g.batch * count);
  op.bytes = Bytes((g.m * g.k + g.k * g.n + g.m * g.n) * w * g.batch * count);
  return op;
}

Operator memory(const char* name, double bytes, double kernels = 1.0) {
  Operator op = make(name, OperatorKind::memory);
  op.bytes = Bytes(bytes);
  op.count = kernels;
  return op;
}

// Without gradient-accumulation fusion, autograd hands each parameter's fresh gradient to a
// separate add into the accumulated one (Megatron-LM's DDP hook `main_grad.add_(grad)`, or
// PyTorch's AccumulateGrad): one kernel per parameter tensor, every microbatch, after the
// weight gradient. Nothing with the fusion, where the GEMM accumulates in place.
void accumulate(const char* name, double params, double tensors, const Dims& x, BlockOperators& b) {
  if (x.accumulate > 0) b.backward.push_back(memory(name, params * x.accumulate, tensors));
}

// Y = X W forward, and its two gradients: dX = dY W^T (m x k outputs, summing over n) and
// dW = X^T dY (k x n outputs, summing over the m tokens). Same FLOP, different shapes.
void linear(const char* name, const char* dgrad, const char* wgrad, GemmShape g, double count,
            double w, BlockOperators& b) {
  b.forward.push_back(gemm(name, g, count, w));
  b.backward.push_back(gemm(dgrad, {g.m, g.k, g.n, g.batch}, count, w));
  b.backward.push_back(gemm(wgrad, {g.k, g.n, g.m, g.batch}, count, w));
}

struct LinearNames {
  const char *forward, *dgrad, *wgrad, *accumulate;
  bool first = false; ///< the block's first weight, whose gradient runs beside its collective
};

// A layer's own weights W (k x n, `count` of them) and, with biases, their n-wide bias: the
// GEMMs of linear() and the weights' gradient accumulation.
void weight_linear(const LinearNames& n, GemmShape g, double count, const Dims& x,
                   BlockOperators& b) {
  size_t dgrad = b.backward.size();
  linear(n.forward, n.dgrad, n.wgrad, g, count, x.w, b);
  double params = (g.k * g.n + (x.biases ? g.n : 0.0)) * count;
  accumulate(n.accumulate, params, (x.biases ? 2.0 : 1.0) * count, x, b);
  for (size_t i = dgrad + 1; i < b.backward.size(); ++i) b.backward[i].beside_collective = n.first;
}

// LayerNorm or RMSNorm (the same traffic): forward reads x and writes y; backward reads x
// and dy and writes dx (the per-channel weight gradients are a few d_model-sized sums).
void norm(const Dims& x, BlockOperators& b) {
  double activation = x.norm_tokens * x.d * x.w;
  b.forward.push_back(memory("norm", 2.0 * activation));
  b.backward.push_back(memory("norm_grad", 3.0 * activation));
  // LayerNorm's scale and shift (GPT, with biases), RMSNorm's scale alone (Llama).
  accumulate("norm_grad_accum", x.biases ? 2.0 * x.d : x.d, x.biases ? 2.0 : 1.0, x, b);
}

// The end of a block: the branch's bias (fused here, as Megatron's bias-dropout-add does),
// dropout and the residual add read the branch and the residual and write the sum (and a
// one-byte dropout mask). Backward: the dropout's gradient, the bias gradient (a sum over
// tokens) and the branch's gradient added into the residual stream's.
void residual(const Dims& x, const ModelSpec& m, BlockOperators& b) {
  double activation = x.norm_tokens * x.d * x.w, mask = x.norm_tokens * x.d;
  b.forward.push_back(m.dropout ? memory("bias_dropout_add", 3.0 * activation + mask)
                                : memory("residual_add", 3.0 * activation));
  if (m.dropout) b.backward.push_back(memory("dropout_grad", 2.0 * activation + mask));
  if (m.biases) b.backward.push_back(memory("bias_grad", activation));
  b.backward.push_back(memory("residual_grad", 3.0 * activation));
}

// Flash attention (causal): the forward executes half of Q K^T and P V, 2 x 2 s^2 d_head FLOP
// per head and sequence, so 2 T s q in all; the backward 2.5 x that (FlashAttention-2's count:
// five matmuls to the forward's two). Traffic: q, k, v in and o out; backward q, k, v, o, do in
// and dq, dk, dv out.
Operator flash_core(const Dims& x, bool backward) {
  Operator op = make(backward ? "attention_grad" : "attention", OperatorKind::attention);
  double forward_flop = 2.0 * x.tokens * x.seq * x.q;
  op.flop = Flop(backward ? 2.5 * forward_flop : forward_flop);
  double qkv = x.tokens * (x.q + 2.0 * x.kv) * x.w, out = x.tokens * x.q * x.w;
  op.bytes = Bytes(backward ? 2.0 * qkv + 3.0 * out : qkv + out);
  op.head_dim = x.head_dim;
  op.seq_len = x.seq;
  return op;
}

// Megatron-LM's core attention before flash attention: Q K^T as one strided-batched GEMM over
// (sequence, head) pairs, the fused scale-mask-softmax and the attention dropout over the
// s x s scores in HBM, then the scores times V. Every product runs in full: the causal mask
// zeroes half the scores but saves no FLOP. Backward: both GEMMs' gradients (Y = X W's
// linear()), the dropout's (scores' gradient and mask in, gradient out) and the softmax's
// (probabilities and their gradient in, the scores' gradient out).
BlockOperators unfused_core(const Dims& x, const ModelSpec& m) {
  BlockOperators b;
  double pairs = x.tokens / x.seq * (x.q / x.head_dim); // sequences x local heads
  double scores = pairs * x.seq * x.seq;                // elements
  linear("scores", "scores_dgrad", "scores_wgrad", {x.seq, x.seq, x.head_dim, pairs}, 1.0, x.w, b);
  b.forward.push_back(memory("scale_mask_softmax", 2.0 * scores * x.w));
  b.backward.push_back(memory("softmax_grad", 3.0 * scores * x.w));
  if (m.dropout) {
    b.forward.push_back(memory("attention_dropout", 2.0 * scores * x.w + scores));
    b.backward.push_back(memory("attention_dropout_grad", 2.0 * scores * x.w + scores));
  }
  linear("context", "context_dgrad", "context_wgrad", {x.seq, x.head_dim, x.seq, pairs}, 1.0, x.w,
         b);
  return b;
}

// The attention core, flash or unfused; selective recomputation drops its activations (the
// largest per token: the softmax and its dropout) and runs its forward again just before its
// backward.
void attention_core(const Dims& x, const ModelSpec& m, Recompute recompute, BlockOperators& b) {
  BlockOperators core;
  if (m.attention == AttentionKernel::flash) {
    core.forward.push_back(flash_core(x, false));
    core.backward.push_back(flash_core(x, true));
  } else {
    core = unfused_core(x, m);
  }
  b.forward.insert(b.forward.end(), core.forward.begin(), core.forward.end());
  if (recompute == Recompute::selective)
    b.backward.insert(b.backward.end(), core.forward.begin(), core.forward.end());
  b.backward.insert(b.backward.end(), core.backward.begin(), core.backward.end());
}

// Flash attention over latent attention's heads: keys as wide as the queries (q), values and
// the output v wide; the forward executes half of Q K^T (2 s^2 q per sequence) and of P V
// (2 s^2 v), the backward 2.5 x that, as flash_core().
Operator latent_flash_core(const Dims& x, bool backward) {
  Operator op = make(backward ? "attention_grad" : "attention", OperatorKind::attention);
  double forward_flop = x.tokens * x.seq * (x.q + x.v);
  op.flop = Flop(backward ? 2.5 * forward_flop : forward_flop);
  double qkv = x.tokens * (2.0 * x.q + x.v) * x.w, out = x.tokens * x.v * x.w;
  op.bytes = Bytes(backward ? 2.0 * qkv + 3.0 * out : qkv + out);
  op.head_dim = x.head_dim;
  op.seq_len = x.seq;
  return op;
}

// Latent attention (models/scenario.hpp) as Megatron-Core runs it with Transformer Engine:
// the down projections' weights are whole on every TP rank (TELinear "duplicated") and run on
// the tokens the rank holds (its sequence shard under sequence parallelism, else all of
// them, repeated on every rank); their latents are normed, gathered over TP and projected up,
// the heads split over TP as the QKV GEMM splits them. The rotary part of the queries (every
// head's) and of the key (one for all heads) is rotated in place. Its up projections' weight
// gradients run beside the block's TP collective, as the QKV GEMM's does.
BlockOperators latent_attention_block(const Dims& x, const ModelSpec& m, Recompute recompute) {
  const LatentAttention& a = m.mla;
  BlockOperators b;
  norm(x, b);
  auto latent_norm = [&](const char* name, const char* grad, double width) {
    double latent = x.norm_tokens * width * x.w;
    b.forward.push_back(memory(name, 2.0 * latent));
    b.backward.push_back(memory(grad, 3.0 * latent));
  };
  if (a.q_lora_rank > 0) {
    weight_linear({"q_down", "q_down_dgrad", "q_down_wgrad", "q_down_grad_accum"},
                  {x.norm_tokens, static_cast<double>(a.q_lora_rank), x.d}, 1.0, x, b);
    latent_norm("q_norm", "q_norm_grad", a.q_lora_rank);
    weight_linear({"q_up", "q_up_dgrad", "q_up_wgrad", "q_up_grad_accum", true},
                  {x.tokens, x.q, static_cast<double>(a.q_lora_rank)}, 1.0, x, b);
  } else {
    weight_linear({"q_proj", "q_proj_dgrad", "q_proj_wgrad", "q_proj_grad_accum", true},
                  {x.tokens, x.q, x.d}, 1.0, x, b);
  }
  weight_linear({"kv_down", "kv_down_dgrad", "kv_down_wgrad", "kv_down_grad_accum"},
                {x.norm_tokens, static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim), x.d},
                1.0, x, b);
  latent_norm("kv_norm", "kv_norm_grad", a.kv_lora_rank);
  weight_linear({"kv_up", "kv_up_dgrad", "kv_up_wgrad", "kv_up_grad_accum", true},
                {x.tokens, x.local_heads * (a.qk_nope_head_dim + a.v_head_dim),
                 static_cast<double>(a.kv_lora_rank)},
                1.0, x, b);
  double rotated = 2.0 * x.tokens * (x.local_heads + 1.0) * a.qk_rope_head_dim * x.w;
  b.forward.push_back(memory("rotary", rotated));
  b.backward.push_back(memory("rotary_grad", rotated));
  b.forward.push_back(latent_flash_core(x, false));
  if (recompute == Recompute::selective) b.backward.push_back(latent_flash_core(x, false));
  b.backward.push_back(latent_flash_core(x, true));
  weight_linear({"out_proj", "out_proj_dgrad", "out_proj_wgrad", "out_proj_grad_accum"},
                {x.tokens, x.d, x.v}, 1.0, x, b);
  residual(x, m, b);
  return b;
}

BlockOperators attention_block(const Dims& x, const ModelSpec& m, Recompute recompute) {
  if (m.mla.on()) return latent_attention_block(x, m, recompute);
  BlockOperators b;
  norm(x, b);
  weight_linear({"qkv", "qkv_dgrad", "qkv_wgrad", "qkv_grad_accum", true},
                {x.tokens, x.q + 2.0 * x.kv, x.d}, 1.0, x, b);
  if (m.biases) b.backward.push_back(memory("qkv_bias_grad", x.tokens * (x.q + 2.0 * x.kv) * x.w));
  if (m.qk_norm) { // an RMSNorm on each head's q and k: as norm() on their width
    double qk = x.tokens * (x.q + x.kv) * x.w;
    b.forward.push_back(memory("qk_norm", 2.0 * qk));
    b.backward.push_back(memory("qk_norm_grad", 3.0 * qk));
  }
  if (m.rotary) { // rotate q and k in place: read and write them, both ways
    double qk = 2.0 * x.tokens * (x.q + x.kv) * x.w;
    b.forward.push_back(memory("rotary", qk));
    b.backward.push_back(memory("rotary_grad", qk));
  }
  attention_core(x, m, recompute, b);
  weight_linear({"out_proj", "out_proj_dgrad", "out_proj_wgrad", "out_proj_grad_accum"},
                {x.tokens, x.d, x.q}, 1.0, x, b);
  residual(x, m, b);
  return b;
}

// One MLP's GEMMs for each of `count` experts, which share `rows` token rows evenly, with an
// inner size of `ff` per TP rank: up (and gate, fused into one GEMM of twice the width, as Megatron does for
// SwiGLU), the activation, down.
struct MlpNames {
  LinearNames up, down;
  const char *activation, *activation_grad;
};

void mlp_gemms(const MlpNames& n, double rows, double ff, double count, const Dims& x,
               const ModelSpec& m, BlockOperators& b) {
  double hidden = rows * ff * x.w, per_expert = rows / count;
  double up = m.gated_mlp ? 2.0 * ff : ff;
  weight_linear(n.up, {per_expert, up, x.d}, count, x, b);
  // GeLU (with fc1's bias fused) reads its input and writes its output; backward reads the
  // input and the output gradient and writes the input gradient. SwiGLU reads gate and up
  // and writes their product; backward reads both and the gradient, writes two gradients.
  b.forward.push_back(memory(n.activation, (m.gated_mlp ? 3.0 : 2.0) * hidden));
  b.backward.push_back(memory(n.activation_grad, (m.gated_mlp ? 5.0 : 3.0) * hidden));
  weight_linear(n.down, {per_expert, x.d, ff}, count, x, b);
}

// The routed experts, one GEMM of each per local expert, each on its share of the routed
// tokens; then the shared experts (models/scenario.hpp), one MLP on every token.
BlockOperators mlp_block(const Dims& x, const ModelSpec& m) {
  BlockOperators b;
  norm(x, b);
  const char* activation = m.gated_mlp ? "swiglu" : "bias_gelu";
  const char* activation_grad = m.gated_mlp ? "swiglu_grad" : "bias_gelu_grad";
  mlp_gemms({{"fc1", "fc1_dgrad", "fc1_wgrad", "fc1_grad_accum", true},
             {"fc2", "fc2_dgrad", "fc2_wgrad", "fc2_grad_accum"},
             activation,
             activation_grad},
            x.routed, x.ff, x.local_experts, x, m, b);
  if (m.shared_experts > 0)
    mlp_gemms({{"shared_fc1", "shared_fc1_dgrad", "shared_fc1_wgrad", "shared_fc1_grad_accum"},
               {"shared_fc2", "shared_fc2_dgrad", "shared_fc2_wgrad", "shared_fc2_grad_accum"},
               m.gated_mlp ? "shared_swiglu" : "shared_bias_gelu",
               m.gated_mlp ? "shared_swiglu_grad" : "shared_bias_gelu_grad"},
              x.tokens, x.ff * m.shared_experts, 1.0, x, m, b);
  residual(x, m, b);
  return b;
}

// Full recomputation runs the block's forward again before its backward.
void recompute_forward(BlockOperators& b) {
  b.backward.insert(b.backward.begin(), b.forward.begin(), b.forward.end());
}

} // namespace

LayerOperators layer_operators(const ModelSpec& m, const ExecutionSpec& e) {
  Dims x = dims(m, e);
  LayerOperators layer{attention_block(x, m, e.recompute), mlp_block(x, m)};
  if (e.recompute == Recompute::full) {
    recompute_forward(layer.attention);
    recompute_forward(layer.mlp);
  }
  return layer;
}

BlockOperators embedding_operators(const ModelSpec& m, const ExecutionSpec& e) {
  BlockOperators b;
  if (m.vocab <= 0) return b;
  Dims x = dims(m, e);
  double activation = x.tokens * x.d * x.w;
  // Vocabulary-parallel lookup: each TP rank reads the rows of its share of the tokens and
  // writes the whole (partly zero) output that the TP group then sums. Backward adds the
  // output gradient into those rows.
  b.forward.push_back(memory("embedding", activation / e.tp + activation));
  b.backward.push_back(memory("embedding_grad", activation + 2.0 * activation / e.tp));
  if (!m.rotary) { // learned positions: one more add forward, a sum over the batch backward
    b.forward.push_back(memory("position_add", 3.0 * activation));
    b.backward.push_back(memory("position_grad", activation));
  }
  accumulate("embedding_grad_accum", embedding_params(m, e), m.rotary ? 1.0 : 2.0, x, b);
  return b;
}

BlockOperators head_operators(const ModelSpec& m, const ExecutionSpec& e) {
  BlockOperators b;
  if (m.vocab <= 0) return b;
  Dims x = dims(m, e);
  norm(x, b);
  double vocab = static_cast<double>(m.vocab) / e.tp;
  linear("logits", "logits_dgrad", "logits_wgrad", {x.tokens, vocab, x.d}, 1.0, x.w, b);
  accumulate("logits_grad_accum", head_params(m, e), 1.0, x, b); // GPT's LM head has no bias
  // Vocabulary-parallel softmax + cross-entropy, fused: read the logits, write the softmax
  // kept for backward; backward reads it and writes the logits' gradient.
  double logits = x.tokens * vocab * x.w;
  b.forward.push_back(memory("cross_entropy", 2.0 * logits));
  b.backward.push_back(memory("cross_entropy_grad", 2.0 * logits));
  std::reverse(b.backward.begin(), b.backward.end()); // the loss's gradient comes first
  return b;
}

Operators optimizer_operators(double params, const ModelSpec& m, const ExecutionSpec& e) {
  constexpr double kGrad = 4.0; // gradients accumulate in fp32 (Megatron's main_grad)
  double state = e.optimizer_bytes_per_param.value(), w = m.bytes_per_word.value();
  Operators ops;
  if (m.precision == "fp16") ops.push_back(memory("grad_unscale", params * 2.0 * kGrad));
  ops.push_back(memory("grad_norm", params * kGrad));
  ops.push_back(memory("adam", params * (2.0 * state + kGrad))); // state in and out, grad in
  ops.push_back(memory("param_copy", params * (4.0 + w)));       // fp32 master in, model out
  ops.push_back(memory("grad_zero", params * kGrad));
  return ops;
}

double embedding_params(const ModelSpec& m, const ExecutionSpec& e) {
  if (m.vocab <= 0) return 0.0;
  double d = static_cast<double>(m.d_model);
  return static_cast<double>(m.vocab) * d / e.tp +
         (m.rotary ? 0.0 : static_cast<double>(m.seq_len) * d);
}

double head_params(const ModelSpec& m, const ExecutionSpec& e) {
  return m.vocab <= 0 ? 0.0 : static_cast<double>(m.vocab) * static_cast<double>(m.d_model) / e.tp;
}

Flop flop_of(const Operators& ops) {
  Flop f;
  for (const Operator& op : ops) f += op.flop;
  return f;
}

Bytes bytes_of(const Operators& ops) {
  Bytes b;
  for (const Operator& op : ops) b += op.bytes;
  return b;
}

} // namespace trainsim
