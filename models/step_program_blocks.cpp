#include "models/step_program_blocks.hpp"

#include <algorithm>
#include <utility>

namespace trainsim::program_detail {
namespace {

Op compute(Seconds t) {
  return {OpKind::compute, GroupKind::tp, CollectiveOp::all_reduce, true, 1, t, Bytes()};
}
Op collective(GroupKind g, CollectiveOp c, Bytes b) {
  return {OpKind::collective, g, c, true, 1, Seconds(), b};
}

} // namespace

// Under sequence parallelism the block's first linear keeps only its input's sequence shard
// and the backward gathers the whole input again for the weight gradient (Megatron-LM's
// LinearWithGradAccumulationAndAsyncCommunication; Korthikanti et al. 2022, section 4.2.2):
// a second all-gather in the backward. Megatron overlaps it with the input-gradient GEMM, as
// it does the non-sequence-parallel backward's all-reduce with the weight gradient; like that
// one (docs/compute-model.md), it runs after the kernels here.
//
// 2-D tensor parallelism (the MLP block's `hidden` all-reduce): the block's two matmuls, up
// (d_model split over tp_2d, d_ff over tp) and down (the other way round), each half of the
// kernel, with the hidden activation's partial sums all-reduced over tp_2d between them;
// the block's own collective then reduces the down matmul's partial sums over tp. Backward
// mirrors it: down's gradients, the all-reduce over tp_2d, up's, the all-reduce over tp.
// Per GPU that is the paper's V (docs/paper-model.md) for both matmuls.
//
// `input`: what the block gathers (and, backward, reduces) on its input side when that is
// not its output's size: latent attention gathers its latents rather than d_model
// (LayerCosts::attention_input). Backward gathers the output's gradient, then the input.
std::vector<Op> block(const ExecutionSpec& e, Seconds kernel, const BlockBytes& bytes, bool fwd,
                      bool experts, bool hidden) {
  std::vector<Op> ops;
  ops.reserve(8); // room for every op below; also quiets GCC 12's -Wstringop-overflow
  bool tp = e.tp > 1;
  Bytes output = bytes.output, input = bytes.input;
  if (tp && e.sequence_parallel)
    ops.push_back(collective(GroupKind::tp, CollectiveOp::all_gather, fwd ? input : output));
  if (tp && e.sequence_parallel && !fwd)
    ops.push_back(collective(GroupKind::tp, CollectiveOp::all_gather, input));
  if (experts) ops.push_back(collective(GroupKind::ep, CollectiveOp::all_to_all, bytes.routed));
  if (hidden && bytes.tp2 > Bytes()) {
    ops.push_back(compute(kernel / 2.0));
    ops.push_back(collective(GroupKind::tp2, CollectiveOp::all_reduce, bytes.tp2));
    kernel = kernel / 2.0;
  }
  ops.push_back(compute(kernel));
  if (experts) ops.push_back(collective(GroupKind::ep, CollectiveOp::all_to_all, bytes.routed));
  if (tp)
    ops.push_back(
        collective(GroupKind::tp,
                   e.sequence_parallel ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce,
                   fwd ? output : input));
  return ops;
}

// Megatron-Core's all-gather dispatcher (MoEAllGatherTokenDispatcher; tp 1, its rule): every
// EP rank gathers the group's tokens with their probabilities and routing map (4 + 1 bytes
// per token and expert), runs its experts on the ones routed to them, and reduce-scatters
// the outputs, each rank's share of every token summed back to the token's owner. The
// backward's gradients take the same two collectives, reduce-scatter and all-gather's.
namespace {
std::vector<Op> gathered_expert_block(const ExecutionSpec& e, Seconds kernel,
                                      const BlockBytes& bytes) {
  Bytes hidden = bytes.output * e.ep, routing = bytes.routing * e.ep;
  return {collective(GroupKind::ep, CollectiveOp::all_gather, hidden + routing), compute(kernel),
          collective(GroupKind::ep, CollectiveOp::reduce_scatter, hidden)};
}
} // namespace

// The expert block under sequence parallelism, as Megatron-Core's all-to-all dispatcher
// runs it (token_dispatcher.py, MoEAlltoAllTokenDispatcher): each TP rank sends its own
// sequence shard's routed tokens over EP; the TP group then gathers what its ranks received
// (each expert is split over TP and computes on all of it) and reduce-scatters the result,
// which goes back over EP. Folded (etp other than tp), the EP group spans TP ranks and the
// ETP group, etp of them, gathers what its ranks received (under tp 1, or etp above tp, ranks
// of other replicas: other tokens); at etp 1 each expert is whole on its rank: the shards go
// straight to the experts and back, with nothing gathered. The shared experts' MLP gathers
// the whole input and reduce-scatters its output as a dense block does. Backward has the
// same shape.
namespace {
std::vector<Op> dispatched_block(const ExecutionSpec& e, const ModelSpec& m, Seconds kernel,
                                 const BlockBytes& bytes, bool fwd) {
  bool tp = e.tp > 1 && e.sequence_parallel;
  if (!tp && (e.tp > 1 || e.expert_tp() <= 1)) return block(e, kernel, bytes, fwd, true, false);
  Bytes whole = bytes.output, shard = bytes.routed / e.tp;
  bool shared = m.shared_experts > 0 && tp;
  std::vector<Op> ops;
  if (shared) ops.push_back(collective(GroupKind::tp, CollectiveOp::all_gather, whole));
  if (shared && !fwd) ops.push_back(collective(GroupKind::tp, CollectiveOp::all_gather, whole));
  // Each expert split over etp ranks, which gather their tokens: the TP group's or its own.
  bool split = e.expert_tp() > 1, fold = e.experts_fold();
  GroupKind splits = fold ? GroupKind::etp : GroupKind::tp;
  Bytes gathered = fold ? shard * e.expert_tp() : bytes.routed;
  ops.push_back(collective(GroupKind::ep, CollectiveOp::all_to_all, shard));
  if (split) ops.push_back(collective(splits, CollectiveOp::all_gather, gathered));
  ops.push_back(compute(kernel));
  if (split) ops.push_back(collective(splits, CollectiveOp::reduce_scatter, gathered));
  ops.push_back(collective(GroupKind::ep, CollectiveOp::all_to_all, shard));
  if (shared) ops.push_back(collective(GroupKind::tp, CollectiveOp::reduce_scatter, whole));
  return ops;
}
} // namespace

// Forward the first all-to-all dispatches the tokens; backward it carries the combine's
// gradient back to the experts: either way the first goes to them and the second back. Only
// an imbalance tells the two apart (Op::to_experts).
std::vector<Op> expert_block(const ExecutionSpec& e, const ModelSpec& m, Seconds kernel,
                             Seconds routed, const BlockBytes& bytes, bool fwd,
                             DelayedWeightGradients delayed) {
  bool apart = !fwd && delayed.kernel > Seconds();
  if (apart) kernel = kernel - delayed.kernel, routed = routed - delayed.routed;
  std::vector<Op> ops = e.moe_dispatcher == MoeDispatcher::allgather
                            ? gathered_expert_block(e, kernel, bytes)
                            : dispatched_block(e, m, kernel, bytes, fwd);
  bool first = e.moe_imbalance > 0; // balanced, both directions move alike and fold together
  for (Op& op : ops) {
    if (op.kind == OpKind::compute) op.routed = routed;
    if (op.collective == CollectiveOp::all_to_all && op.kind == OpKind::collective)
      op.to_experts = std::exchange(first, false);
  }
  if (apart) {
    Op gradients = compute(delayed.kernel);
    gradients.kind = OpKind::weight_gradients;
    gradients.routed = delayed.routed;
    auto last = std::find_if(ops.rbegin(), ops.rend(), [](const Op& op) {
      return op.collective == CollectiveOp::all_to_all;
    });
    ops.insert(last.base() - 1, gradients);
  }
  return ops;
}

// Context parallelism, as Llama 3 runs it: the attention core waits for an all-gather of
// the CP group's keys and values, forward and backward (Transformer Engine's all-gather CP
// keeps only the local K and V and gathers them again for the backward), and the backward
// reduce-scatters their gradients back to their owners.
std::vector<Op> with_context(std::vector<Op> ops, Bytes kv, const ExecutionSpec& e, bool fwd) {
  if (e.cp <= 1) return ops;
  auto kernel = std::find_if(ops.begin(), ops.end(),
                             [](const Op& op) { return op.kind == OpKind::compute; });
  kernel = ops.insert(kernel, collective(GroupKind::cp, CollectiveOp::all_gather, kv));
  if (!fwd) ops.insert(kernel + 2, collective(GroupKind::cp, CollectiveOp::reduce_scatter, kv));
  return ops;
}

DelayedWeightGradients delayed_weight_gradients(const ExecutionSpec& e, const BlockTime& b) {
  if (!e.delay_wgrad_compute) return {};
  return {b.weight_gradients.total(), b.routed_weight_gradients.total()};
}

Seconds routed_time(const BlockTime& b, bool forward, bool less_forward) {
  if (forward) return b.routed_forward.total();
  Seconds t = b.routed_backward.total();
  return less_forward ? t - b.routed_forward.total() : t;
}

} // namespace trainsim::program_detail
