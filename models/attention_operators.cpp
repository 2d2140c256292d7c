// The attention block's operators: standard or grouped-query attention over a flash or an
// unfused core, and multi-head latent attention (docs/compute-model.md).
#include "models/operator_parts.hpp"

namespace trainsim::operator_parts {
namespace {

// Flash attention (causal): the forward executes half of Q K^T and P V, 2 x 2 s^2 d_head FLOP
// per head and sequence, so 2 T s q in all; the backward 2.5 x that (FlashAttention-2's count:
// five matmuls to the forward's two). Traffic: q, k, v in and o out; backward q, k, v, o, do in
// and dq, dk, dv out.
// The keys a query attends to under a causal window of W (itself and the W - 1 before it), on
// average over a sequence of s: W - W (W - 1) / (2 s), the first W - 1 queries seeing fewer.
double windowed_keys(const Dims& x) { return x.window - x.window * (x.window - 1) / (2.0 * x.seq); }

// The measured rate of a windowed core is read at the window's length: its tiles are those of a
// sequence that long.
double rate_length(const Dims& x) { return x.window > 0 ? x.window : x.seq; }

Operator flash_core(const Dims& x, bool backward, AttentionKernel kernel) {
  Operator op = make(backward ? "attention_grad" : "attention", OperatorKind::attention);
  op.kernel = kernel;
  // Q K^T and P V over the keys each query sees: 2 x 2 q FLOP per key; s / 2 of them causal.
  double forward_flop =
      x.window > 0 ? 4.0 * x.tokens * windowed_keys(x) * x.q : 2.0 * x.tokens * x.seq * x.q;
  op.flop = Flop(backward ? 2.5 * forward_flop : forward_flop);
  double qkv = x.tokens * (x.q + 2.0 * x.kv) * x.w, out = x.tokens * x.q * x.w;
  op.bytes = Bytes(backward ? 2.0 * qkv + 3.0 * out : qkv + out);
  op.head_dim = x.head_dim;
  op.seq_len = rate_length(x);
  return op;
}

// Megatron-LM's core attention before flash attention: Q K^T as one strided-batched GEMM over
// (sequence, head) pairs, the fused scale-mask-softmax and the attention dropout over the
// s x s scores in HBM, then the scores times V. Every product runs in full: the causal mask
// zeroes half the scores (and a window more) but saves no FLOP. Backward: both GEMMs' gradients
// (Y = X W's linear()), the dropout's (scores' gradient and mask in, gradient out) and the
// softmax's (probabilities and their gradient in, the scores' gradient out).
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
void attention_core(const Dims& x, const ModelSpec& m, BlockOperators& b) {
  BlockOperators core;
  if (fused(m.attention)) {
    core.forward.push_back(flash_core(x, false, m.attention));
    core.backward.push_back(flash_core(x, true, m.attention));
  } else {
    core = unfused_core(x, m);
  }
  size_t first = b.forward.size();
  b.forward.insert(b.forward.end(), core.forward.begin(), core.forward.end());
  if (x.recomputes(RecomputeModule::core_attn)) run_again(b, first);
  b.backward.insert(b.backward.end(), core.backward.begin(), core.backward.end());
}

// Flash attention over latent attention's heads: keys as wide as the queries (q), values and
// the output v wide; the forward executes half of Q K^T (2 s^2 q per sequence) and of P V
// (2 s^2 v), the backward 2.5 x that, as flash_core().
Operator latent_flash_core(const Dims& x, bool backward, AttentionKernel kernel) {
  Operator op = make(backward ? "attention_grad" : "attention", OperatorKind::attention);
  op.kernel = kernel;
  double forward_flop = x.window > 0 ? 2.0 * x.tokens * windowed_keys(x) * (x.q + x.v)
                                     : x.tokens * x.seq * (x.q + x.v);
  op.flop = Flop(backward ? 2.5 * forward_flop : forward_flop);
  double qkv = x.tokens * (2.0 * x.q + x.v) * x.w, out = x.tokens * x.v * x.w;
  op.bytes = Bytes(backward ? 2.0 * qkv + 3.0 * out : qkv + out);
  op.head_dim = x.head_dim;
  op.seq_len = rate_length(x);
  return op;
}

// Latent attention (models/scenario.hpp) as Megatron-Core runs it with Transformer Engine:
// the down projections' weights are whole on every TP rank (TELinear "duplicated") and run on
// the tokens the rank holds (its sequence shard under sequence parallelism, else all of
// them, repeated on every rank); their latents are normed, gathered over TP and projected up,
// the heads split over TP as the QKV GEMM splits them. The rotary part of the queries (every
// head's) and of the key (one for all heads) is rotated in place. Its up projections' weight
// gradients run beside the block's TP collective, as the QKV GEMM's does.
BlockOperators latent_attention_block(const Dims& x, const ModelSpec& m) {
  const LatentAttention& a = m.mla;
  BlockOperators b;
  layer_norm(x, b);
  bool up_again = x.recomputes(RecomputeModule::mla_up_proj);
  auto latent_norm = [&](const char* name, const char* grad, double width) {
    double latent = x.norm_tokens * width * x.w;
    b.forward.push_back(memory(name, 2.0 * latent));
    b.backward.push_back(memory(grad, 3.0 * latent));
  };
  if (a.q_lora_rank > 0) {
    weight_linear({"q_down", "q_down_dgrad", "q_down_wgrad", "q_down_grad_accum"},
                  {x.norm_tokens, static_cast<double>(a.q_lora_rank), x.d}, 1.0, x, b);
    latent_norm("q_norm", "q_norm_grad", a.q_lora_rank);
    size_t first = b.forward.size();
    weight_linear({"q_up", "q_up_dgrad", "q_up_wgrad", "q_up_grad_accum", true},
                  {x.tokens, x.q, static_cast<double>(a.q_lora_rank)}, 1.0, x, b);
    if (up_again) run_again(b, first);
  } else {
    weight_linear({"q_proj", "q_proj_dgrad", "q_proj_wgrad", "q_proj_grad_accum", true},
                  {x.tokens, x.q, x.d}, 1.0, x, b);
  }
  weight_linear({"kv_down", "kv_down_dgrad", "kv_down_wgrad", "kv_down_grad_accum"},
                {x.norm_tokens, static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim), x.d}, 1.0,
                x, b);
  latent_norm("kv_norm", "kv_norm_grad", a.kv_lora_rank);
  size_t first = b.forward.size();
  weight_linear({"kv_up", "kv_up_dgrad", "kv_up_wgrad", "kv_up_grad_accum", true},
                {x.tokens, x.local_heads * (a.qk_nope_head_dim + a.v_head_dim),
                 static_cast<double>(a.kv_lora_rank)},
                1.0, x, b);
  double rotated = 2.0 * x.tokens * (x.local_heads + 1.0) * a.qk_rope_head_dim * x.w;
  b.forward.push_back(memory("rotary", rotated));
  b.backward.push_back(memory("rotary_grad", rotated));
  if (up_again) run_again(b, first);
  first = b.forward.size();
  b.forward.push_back(latent_flash_core(x, false, m.attention));
  if (x.recomputes(RecomputeModule::core_attn)) run_again(b, first);
  b.backward.push_back(latent_flash_core(x, true, m.attention));
  weight_linear({"out_proj", "out_proj_dgrad", "out_proj_wgrad", "out_proj_grad_accum"},
                {x.tokens, x.d, x.v}, 1.0, x, b);
  residual(x, m, b);
  return b;
}

} // namespace

BlockOperators attention_block(const Dims& x, const ModelSpec& m) {
  if (m.mla.on()) return latent_attention_block(x, m);
  BlockOperators b;
  layer_norm(x, b);
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
  attention_core(x, m, b);
  weight_linear({"out_proj", "out_proj_dgrad", "out_proj_wgrad", "out_proj_grad_accum"},
                {x.tokens, x.d, x.q}, 1.0, x, b);
  residual(x, m, b);
  return b;
}

} // namespace trainsim::operator_parts
