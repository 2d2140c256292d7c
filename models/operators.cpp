#include "models/operators.hpp"
#include "models/operator_parts.hpp"

#include <algorithm>
#include <string_view>

#include "models/workload.hpp"

namespace trainsim {
namespace operator_parts {

// What quantizing one BF16 element costs in HBM traffic under each recipe, kernel by kernel:
// - tensorwise (Transformer Engine's current scaling): an amax pass reads it (2 B), then a fused
//   cast-transpose reads it again and writes its FP8 copy and the transposed one the other
//   GEMM operand needs (1 + 1 B): 6 B (TE's docs: current scaling reads each tensor twice);
//   5 B on a GPU whose FP8 GEMMs take every layout (no transpose: Operator::transpose_bytes);
// - delayed (Transformer Engine's DelayedScaling): the scale comes from the amax history of
//   earlier steps, so the fused cast-transpose reads the tensor once, writes both copies and
//   records the new amax on the way: 4 B (3 B without the transpose);
// - blockwise (DeepSeek-V3's 1 x 128 and 128 x 128 tiles): one pass per block reads it, writes
//   both copies and a 4-byte scale per 128: 4.03 B;
// - mxfp8: one pass reads it, writes both copies and a 1-byte E8M0 scale per 32 elements of
//   each: 4.06 B.
double fp8_quantize_bytes(Fp8Recipe r) {
  switch (r) {
  case Fp8Recipe::tensorwise:
    return 2.0 + 2.0 + 1.0 + 1.0;
  case Fp8Recipe::delayed:
    return 2.0 + 1.0 + 1.0;
  case Fp8Recipe::blockwise:
    return 2.0 + 1.0 + 1.0 + 4.0 / 128.0;
  case Fp8Recipe::mxfp8:
    return 2.0 + 1.0 + 1.0 + 2.0 / 32.0;
  case Fp8Recipe::none:
    break;
  }
  return 0.0;
}

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
  if (m.window > 0) x.window = std::min(static_cast<double>(m.window), x.seq);
  x.ff = static_cast<double>(m.expert_d_ff()) / e.expert_tp();
  x.shared_ff = static_cast<double>(m.expert_d_ff()) / tp;
  x.w = m.bytes_per_word.value();
  x.routed_share = routed_share(m, e);
  // Folded, a rank's experts take the copies its EP group routes to them, which balanced are
  // as many as its own sequence shard sends out, and what its ETP group's ranks received
  // (etp shards; none to gather at etp 1).
  x.routed =
      (e.experts_fold() ? x.tokens / tp * e.expert_tp() : x.tokens) * m.top_k * x.routed_share;
  x.local_experts = static_cast<double>(m.experts) / e.ep;
  x.experts = m.experts, x.top_k = m.top_k;
  x.grouped = m.moe_grouped_gemm, x.router_fp32 = m.router_fp32;
  bool gathers = e.moe_dispatcher == MoeDispatcher::allgather;
  x.exchanges = e.ep > 1 && !gathers, x.gathered = gathers ? e.ep : 1.0;
  if (!e.grad_accumulation_fusion) x.accumulate = x.w + 2.0 * gradient_word(m, e).value();
  x.biases = m.biases;
  x.quantize = fp8_quantize_bytes(m.fp8_recipe);
  bool per_tensor = m.fp8_recipe == Fp8Recipe::tensorwise || m.fp8_recipe == Fp8Recipe::delayed;
  x.transpose = per_tensor ? 1.0 : 0.0;
  x.weights_cast_once = x.quantize > 0 && e.zero < 3;
  x.again = e.selective_modules();
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

Operator memory(const char* name, double bytes, double kernels) {
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

// Quantizing `elements` BF16 values to FP8 in `kernels` kernels, the transposed copy apart.
Operator quantize(const char* name, double elements, double kernels, const Dims& x) {
  Operator op = memory(name, elements * x.quantize, kernels);
  op.transpose_bytes = Bytes(elements * x.transpose);
  return op;
}

// Y = X W forward, and its two gradients: dX = dY W^T (m x k outputs, summing over n) and
// dW = X^T dY (k x n outputs, summing over the m tokens). Same FLOP, different shapes.
void linear(const char* name, const char* dgrad, const char* wgrad, GemmShape g, double count,
            double w, BlockOperators& b) {
  b.forward.push_back(gemm(name, g, count, w));
  b.backward.push_back(gemm(dgrad, {g.m, g.k, g.n, g.batch}, count, w));
  b.backward.push_back(gemm(wgrad, {g.k, g.n, g.m, g.batch}, count, w));
}

// A layer's own weights W (k x n, `count` of them) and, with biases, their n-wide bias: the
// GEMMs of linear() and the weights' gradient accumulation. Under FP8 each GEMM's BF16
// operands are quantized first: its input and weight forward, its output gradient backward.
void weight_linear(const LinearNames& n, GemmShape g, double count, const Dims& x,
                   BlockOperators& b) {
  double products = count * g.batch; // a grouped GEMM quantizes all its products at once
  if (x.quantize > 0) {
    b.forward.push_back(quantize("fp8_quantize", g.m * g.k * products, count, x));
    b.forward.push_back(quantize("fp8_weight_cast", g.k * g.n * products, count, x));
    b.forward.back().per_step = x.weights_cast_once;
    b.backward.push_back(quantize("fp8_quantize_grad", g.m * g.n * products, count, x));
  }
  size_t dgrad = b.backward.size();
  linear(n.forward, n.dgrad, n.wgrad, g, count, x.w, b);
  double params = (g.k * g.n + (x.biases ? g.n : 0.0)) * products;
  accumulate(n.accumulate, params, (x.biases ? 2.0 : 1.0) * products, x, b);
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

void layer_norm(const Dims& x, BlockOperators& b) {
  size_t first = b.forward.size();
  norm(x, b);
  if (x.recomputes(RecomputeModule::layernorm)) run_again(b, first);
}

Operators forward_again(const BlockOperators& b, size_t first) {
  Operators again;
  for (size_t i = first; i < b.forward.size(); ++i) {
    if (b.forward[i].per_step) continue; // the cached FP8 weight serves the recomputation too
    again.push_back(b.forward[i]);
    again.back().recomputed = true;
  }
  return again;
}

void run_again(BlockOperators& b, size_t first) {
  Operators again = forward_again(b, first);
  b.backward.insert(b.backward.end(), again.begin(), again.end());
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

} // namespace operator_parts

namespace {

using namespace operator_parts;

// One MLP's GEMMs for each of `count` experts, which share `rows` token rows evenly, with an
// inner size of `ff` per TP rank: up (and gate, fused into one GEMM of twice the width, as Megatron does for
// SwiGLU), the activation, down.
struct MlpNames {
  LinearNames up, down;
  const char *activation, *activation_grad;
};

/// What selective recomputation runs again of one MLP: nothing, its activation (`moe_act`) or
/// all of it (`mlp`, `shared_experts`).
enum class MlpAgain : std::uint8_t { none, activation, all };

void mlp_gemms(const MlpNames& n, double rows, double ff, double count, const Dims& x,
               const ModelSpec& m, MlpAgain again, BlockOperators& b) {
  double hidden = rows * ff * x.w, per_expert = rows / count;
  double up = m.gated_mlp ? 2.0 * ff : ff;
  // Grouped: one kernel of `count` products, whose tiles fill the waves together.
  double batch = count > 1.0 && x.grouped ? count : 1.0;
  count /= batch;
  size_t first = b.forward.size();
  weight_linear(n.up, {per_expert, up, x.d, batch}, count, x, b);
  // GeLU (with fc1's bias fused) reads its input and writes its output; backward reads the
  // input and the output gradient and writes the input gradient. SwiGLU reads gate and up
  // and writes their product; backward reads both and the gradient, writes two gradients.
  size_t activation = b.forward.size();
  b.forward.push_back(memory(n.activation, (m.gated_mlp ? 3.0 : 2.0) * hidden));
  b.backward.push_back(memory(n.activation_grad, (m.gated_mlp ? 5.0 : 3.0) * hidden));
  if (again == MlpAgain::activation) run_again(b, activation);
  weight_linear(n.down, {per_expert, x.d, ff, batch}, count, x, b);
  if (again == MlpAgain::all) run_again(b, first);
}

// The experts' operators from `forward` and `backward` on follow their routed tokens, but for
// the weights' FP8 casts and gradient accumulation (the memory operators of a weight_linear()
// that read no activation).
void mark_routed(BlockOperators& b, size_t forward, size_t backward) {
  for (size_t i = forward; i < b.forward.size(); ++i)
    b.forward[i].routed = std::string_view(b.forward[i].name) != "fp8_weight_cast";
  for (size_t i = backward; i < b.backward.size(); ++i)
    b.backward[i].routed = !std::string_view(b.backward[i].name).ends_with("_grad_accum");
}

// `moe_act` runs the routed experts' activation again, `mlp` a dense layer's whole MLP.
MlpAgain routed_again(const Dims& x, const ModelSpec& m) {
  if (m.experts > 1)
    return x.recomputes(RecomputeModule::moe_act) ? MlpAgain::activation : MlpAgain::none;
  return x.recomputes(RecomputeModule::mlp) ? MlpAgain::all : MlpAgain::none;
}

// The routed experts, one GEMM of each per local expert (or one grouped GEMM of them all),
// each on its share of the routed tokens, between the router's kernels and the tokens'
// permutation (models/moe_operators.cpp); then the shared experts (models/scenario.hpp), one
// MLP on every token.
BlockOperators mlp_block(const Dims& x, const ModelSpec& m) {
  BlockOperators b;
  layer_norm(x, b);
  if (m.experts > 1) route(x, b);
  const char* activation = m.gated_mlp ? "swiglu" : "bias_gelu";
  const char* activation_grad = m.gated_mlp ? "swiglu_grad" : "bias_gelu_grad";
  size_t forward = b.forward.size(), backward = b.backward.size();
  mlp_gemms({{"fc1", "fc1_dgrad", "fc1_wgrad", "fc1_grad_accum", true},
             {"fc2", "fc2_dgrad", "fc2_wgrad", "fc2_grad_accum"},
             activation,
             activation_grad},
            x.routed, x.ff, x.local_experts, x, m, routed_again(x, m), b);
  if (m.experts > 1) mark_routed(b, forward, backward);
  if (m.experts > 1) combine(x, b);
  if (m.shared_experts > 0)
    mlp_gemms({{"shared_fc1", "shared_fc1_dgrad", "shared_fc1_wgrad", "shared_fc1_grad_accum"},
               {"shared_fc2", "shared_fc2_dgrad", "shared_fc2_wgrad", "shared_fc2_grad_accum"},
               m.gated_mlp ? "shared_swiglu" : "shared_bias_gelu",
               m.gated_mlp ? "shared_swiglu_grad" : "shared_bias_gelu_grad"},
              x.tokens, x.shared_ff * m.shared_experts, 1.0, x, m,
              x.recomputes(RecomputeModule::shared_experts) ? MlpAgain::all : MlpAgain::none, b);
  residual(x, m, b);
  return b;
}

// Full recomputation runs the block's forward again before its backward.
void recompute_forward(BlockOperators& b) {
  Operators again = forward_again(b, 0);
  b.backward.insert(b.backward.begin(), again.begin(), again.end());
}

} // namespace

LayerOperators layer_operators(const ModelSpec& m, const ExecutionSpec& e) {
  Dims x = dims(m, e);
  LayerOperators layer{attention_block(x, m), mlp_block(x, m)};
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

namespace {

// The final norm, the logits GEMM (BF16 under FP8: Operator::wide) and the loss.
void lm_head(const Dims& x, const ModelSpec& m, const ExecutionSpec& e, BlockOperators& b) {
  norm(x, b);
  double vocab = static_cast<double>(m.vocab) / e.tp;
  size_t forward = b.forward.size(), backward = b.backward.size();
  linear("logits", "logits_dgrad", "logits_wgrad", {x.tokens, vocab, x.d}, 1.0, x.w, b);
  b.forward[forward].wide = true;
  for (size_t i = backward; i < b.backward.size(); ++i) b.backward[i].wide = true;
  accumulate("logits_grad_accum", head_params(m, e), 1.0, x, b); // GPT's LM head has no bias
  // Vocabulary-parallel softmax + cross-entropy, fused: read the logits, write the softmax
  // kept for backward; backward reads it and writes the logits' gradient.
  double logits = x.tokens * vocab * x.w;
  b.forward.push_back(memory("cross_entropy", 2.0 * logits));
  b.backward.push_back(memory("cross_entropy_grad", 2.0 * logits));
}

// A multi-token-prediction module's own kernels around its layer (which the stage runs as one
// of its layers): the next tokens' embedding, a norm of it and of the hidden state, their
// projection from 2 d_model to d_model (Transformer Engine's column-parallel linear, so in FP8
// where the layers are), and then the LM head and loss again.
void mtp_module(const Dims& x, const ModelSpec& m, const ExecutionSpec& e, BlockOperators& b) {
  double activation = x.tokens * x.d * x.w;
  b.forward.push_back(memory("mtp_embedding", activation / e.tp + activation));
  b.backward.push_back(memory("mtp_embedding_grad", activation + 2.0 * activation / e.tp));
  norm(x, b), norm(x, b);
  weight_linear({"mtp_proj", "mtp_proj_dgrad", "mtp_proj_wgrad", "mtp_proj_grad_accum"},
                {x.tokens, x.d / e.tp, 2.0 * x.d}, 1.0, x, b);
  lm_head(x, m, e, b);
}

} // namespace

BlockOperators head_operators(const ModelSpec& m, const ExecutionSpec& e) {
  BlockOperators b;
  if (m.vocab <= 0) return b;
  Dims x = dims(m, e);
  lm_head(x, m, e, b);
  for (int k = 0; k < m.mtp_layers; ++k) mtp_module(x, m, e, b);
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

double mtp_params(const ModelSpec& m, const ExecutionSpec& e) {
  if (m.mtp_layers <= 0) return 0.0;
  double d = static_cast<double>(m.d_model);
  // Its own copy of the embedding unless the head's stage holds the embedding too.
  return (e.head_stage() != 0 ? embedding_params(m, e) : 0.0) + m.mtp_layers * 2.0 * d * d / e.tp;
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
