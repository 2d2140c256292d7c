// tp_overlap's pipelines (models/step_program.hpp, program_detail::overlapped): a block's kernels in splits
// beside their TP collectives' splits on each axis's stream.
#include <algorithm>
#include <array>
#include <functional>
#include <iterator>
#include <optional>

#include "models/step_program.hpp"

namespace trainsim {
namespace {

Op weight_gradients(Seconds t) {
  return {OpKind::weight_gradients, GroupKind::tp, CollectiveOp::all_reduce, false, 1, t, Bytes()};
}
Op wait_tp(int count) { return program_detail::wait_stream(GroupKind::tp, count); }

// Under tp_overlap each TP axis has a stream of its own, as each NCCL communicator and each
// of Transformer Engine's userbuffers overlaps runs on its own CUDA stream: a kernel's split
// waits on each axis for its share of the collectives before it. What one axis's stream holds
// before the kernel's inputs (`started`), how many inputs it added, whether they are all
// gathers, and the axis's ranks: a kernel whose inputs are all gathers starts on the rows it
// holds, as TE's ring-exchange all-gather overlap computes the local shard first while the
// next arrives (CommOverlapP2PBase::split_overlap_ag), so it waits only for the gathers'
// splits that its rows need beyond its own (program_detail::gathered_splits_needed).
struct AxisInputs {
  GroupKind group = GroupKind::tp;
  int started = 0, inputs = 0, ranks = 1;
  bool gathered = true;

  [[nodiscard]] std::optional<Op> wait_before(int split, int splits) const {
    int each = gathered ? program_detail::gathered_splits_needed(split, splits, ranks) : split + 1;
    int needed = started + inputs * each;
    if (inputs == 0 || needed == started) return std::nullopt;
    return program_detail::wait_stream(group, needed);
  }
};

// The TP collectives in [begin, end), by axis: `axes` holds tp, then tp2.
template <class It>
void count_inputs(It begin, It end, std::array<AxisInputs, 2>& axes) {
  axes[1].group = GroupKind::tp2;
  for (AxisInputs& axis : axes) {
    axis.inputs = 0;
    axis.gathered = true;
  }
  for (It it = begin; it != end; ++it) {
    if (it->kind != OpKind::collective || !tensor_parallel(it->group)) continue;
    AxisInputs& axis = axes[it->group == GroupKind::tp2 ? 1 : 0];
    axis.inputs += 1;
    axis.gathered = axis.gathered && it->collective == CollectiveOp::all_gather;
  }
}

} // namespace

// tp_overlap (Transformer Engine's userbuffer overlap): each of the block's kernels in
// splits on the compute stream, its TP collectives in as many splits on their axis's TP
// stream. A split of a kernel waits for its splits of the collectives before it (under 2-D TP
// the down matmul's for the hidden all-reduce; sequence parallelism's all-gathers only the
// splits its rows need beyond the GPU's own shard: AxisInputs) and starts its splits of the
// collectives after it; the next block waits for them all. In the backward the block's first
// weight's gradient (`beside`, part of its last kernel) is not split: the collective
// carries the input gradient before it, so it runs after the splits, beside the collective,
// as Transformer Engine's bulk overlap runs that wgrad GEMM beside the reduce-scatter of
// dgrad's output (`ub_bulk_wgrad`, which Megatron-LM's TELayerNormColumnParallelLinear turns
// on with tp_comm_overlap). Other ops (context parallelism's) stay where they were. An expert
// block's TP collective follows its all-to-all and stays serial.
std::vector<Op> program_detail::overlapped(const std::vector<Op>& ops, Seconds beside,
                                   const ExecutionSpec& e) {
  if (!e.tp_overlap) return ops;
  const int k = e.tp_overlap_splits;
  auto is_kernel = [](const Op& op) { return op.kind == OpKind::compute; };
  auto is_tp = [](const Op& op) {
    return op.kind == OpKind::collective && tensor_parallel(op.group);
  };
  auto start_chunk = [k](Op op) {
    op.kind = OpKind::start_collective;
    op.bytes = op.bytes / static_cast<double>(k);
    return op;
  };
  auto kernel = std::find_if(ops.begin(), ops.end(), is_kernel);
  std::vector<Op> out;
  std::array<AxisInputs, 2> axes;
  axes[0].ranks = e.tp;
  axes[1].ranks = e.tp_2d;
  count_inputs(ops.begin(), kernel, axes);
  for (int j = 0; j < k; ++j)
    for (auto it = ops.begin(); it != kernel; ++it)
      if (is_tp(*it)) out.push_back(start_chunk(*it));
  std::copy_if(ops.begin(), kernel, std::back_inserter(out), std::not_fn(is_tp));
  while (kernel != ops.end()) {
    auto next = std::find_if(kernel + 1, ops.end(), is_kernel);
    Seconds weights = next == ops.end() ? std::min(beside, kernel->duration) : Seconds();
    for (int j = 0; j < k; ++j) {
      for (const AxisInputs& axis : axes)
        if (std::optional<Op> wait = axis.wait_before(j, k)) out.push_back(*wait);
      Op part = *kernel;
      part.duration = (part.duration - weights) / static_cast<double>(k);
      out.push_back(part);
      for (auto it = kernel + 1; it != next; ++it)
        if (is_tp(*it)) out.push_back(start_chunk(*it));
    }
    if (weights > Seconds()) out.push_back(weight_gradients(weights));
    std::copy_if(kernel + 1, next, std::back_inserter(out), std::not_fn(is_tp));
    for (AxisInputs& axis : axes) axis.started += axis.inputs * k;
    count_inputs(kernel + 1, next, axes);
    kernel = next;
  }
  out.push_back(wait_tp(0));
  return out;
}

int program_detail::gathered_splits_needed(int split, int splits, int ranks) {
  long beyond_own = static_cast<long>(split + 1) * ranks - splits; // in 1/(splits x ranks)
  return beyond_own <= 0 ? 0 : static_cast<int>((beyond_own + ranks - 1) / ranks);
}

} // namespace trainsim
