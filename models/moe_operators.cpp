// A mixture-of-experts block's kernels around its experts, as Megatron-Core runs them with its
// fused router (moe_router_fusion) and fused permutation (moe_permute_fusion), which the
// Megatron-Bridge MoE recipes set, and the all-to-all dispatcher
// (megatron/core/transformer/moe/router.py, moe_utils.py, token_dispatcher.py). Each TP rank
// routes the tokens it holds: its sequence shard under sequence parallelism, else all of them.
// docs/compute-model.md lists them with their byte counts.
#include "models/operator_parts.hpp"
#include "models/workload.hpp"

namespace trainsim::operator_parts {
namespace {

constexpr double kFloat = 4.0; // a copy's probability and, in FP32, a logit

double logit_word(const Dims& x) { return x.router_fp32 ? kFloat : x.w; }

// After the all-to-all the received tokens come grouped by source rank, then by expert; with
// more than one local expert they are sorted into one run per expert before the GEMMs
// (sort_chunks_by_idxs), and back after them: a read and a write of every routed row.
double sort_bytes(const Dims& x) {
  return x.exchanges && x.local_experts > 1.0 ? 2.0 * x.routed * x.d * x.w : 0.0;
}

} // namespace

// The router: the logits GEMM (t x E from t x d_model; a BF16 GEMM even where the layers run
// in FP8, Operator::wide; FP32 logits are its output's type, not its rate), then the fused
// score function and top-k, which read the logits and write the probabilities and the routing
// map, then the permutation, which copies each token once per expert it goes to, with its
// probability. Only the copies the experts keep are written (routed_share(): as many as their
// capacity when padded); under the all-gather dispatcher the copies come from the EP group's
// gathered tokens (Dims::gathered). Backward: the permutation's gradient sums each token's
// copies; the top-k's gradient reads the probabilities' gradient and the saved probabilities
// and writes the logits'; then the GEMM's two gradients and the router weight's accumulation.
void route(const Dims& x, BlockOperators& b) {
  double t = x.norm_tokens, lw = logit_word(x), copies = t * x.top_k * x.routed_share;
  size_t forward = b.forward.size(), backward = b.backward.size();
  linear("router", "router_dgrad", "router_wgrad", {t, x.experts, x.d}, 1.0, x.w, b);
  b.forward.back().bytes += Bytes(t * x.experts * (lw - x.w));
  for (size_t i = forward; i < b.forward.size(); ++i) b.forward[i].wide = true;
  for (size_t i = backward; i < b.backward.size(); ++i) b.backward[i].wide = true;
  accumulate("router_grad_accum", x.experts * x.d, 1.0, x, b);
  double scores = t * x.experts;
  b.forward.push_back(memory("router_topk", scores * (lw + kRouterStateBytes)));
  b.backward.push_back(memory("router_topk_grad", scores * (kFloat + kRouterStateBytes + lw)));
  double source = t * x.gathered; // the tokens it picks its copies from
  b.forward.push_back(memory("permute", source * x.d * x.w + copies * (x.d * x.w + kFloat)));
  b.backward.push_back(memory("permute_grad", copies * x.d * x.w + source * x.d * x.w));
  if (double sorted = sort_bytes(x); sorted > 0) {
    b.forward.push_back(memory("expert_sort", sorted));
    b.backward.push_back(memory("expert_sort_grad", sorted));
    b.forward.back().routed = b.backward.back().routed = true;
  }
}

// The combine: the experts' outputs sorted back by source rank, then unpermuted into token
// order, each token's outputs summed weighted by their probabilities (under the all-gather
// dispatcher into the gathered tokens' places, zero where another rank's experts ran).
// Backward: the gradient goes to each copy times its probability, and the probabilities'
// gradient is each copy's output dotted with it, so the outputs are read again.
void combine(const Dims& x, BlockOperators& b) {
  double t = x.norm_tokens, copies = t * x.top_k * x.routed_share, target = t * x.gathered;
  if (double sorted = sort_bytes(x); sorted > 0) {
    b.forward.push_back(memory("expert_unsort", sorted));
    b.backward.push_back(memory("expert_unsort_grad", sorted));
    b.forward.back().routed = b.backward.back().routed = true;
  }
  b.forward.push_back(memory("unpermute", copies * (x.d * x.w + kFloat) + target * x.d * x.w));
  b.backward.push_back(
      memory("unpermute_grad", target * x.d * x.w + copies * (2.0 * x.d * x.w + 2.0 * kFloat)));
}

} // namespace trainsim::operator_parts
