// Fast mode's folding of a stage program (sim/program.hpp): each run of kernels and
// collectives between two pipeline transfers (or DP bucket starts) becomes a few ops.
#include <algorithm>

#include "sim/program.hpp"

namespace trainsim::sim::detail {
namespace {

bool on_tp_stream(const Op& op) {
  return (op.kind == OpKind::start_collective || op.kind == OpKind::wait_collectives) &&
         tensor_parallel(op.group);
}

bool foldable(const Op& op) {
  return op.kind == OpKind::compute || op.kind == OpKind::weight_gradients ||
         op.kind == OpKind::collective || on_tp_stream(op);
}

bool same_collective(const Op& a, const Op& b) {
  return a.kind == b.kind && a.group == b.group && a.collective == b.collective &&
         a.bytes == b.bytes;
}

/// Adds `op` to the distinct collectives of a run (in order of first appearance), or its count
/// to the same one's.
void tally(std::vector<Op>& distinct, const Op& op) {
  auto same = std::find_if(distinct.begin(), distinct.end(),
                           [&](const Op& c) { return same_collective(c, op); });
  if (same != distinct.end()) {
    same->count += op.count;
    return;
  }
  distinct.push_back(op);
  distinct.back().layer = -1;
}

/// Whether a chunk's collective feeds a later kernel of its own block: an all-gather feeds
/// the kernel after it, 2-D TP's hidden all-reduce (the only collective of the second axis)
/// the block's second matmul (sim/program.cpp). The others reduce the block's output.
bool feeds_its_block(const Op& op) {
  return op.collective == CollectiveOp::all_gather || op.group == GroupKind::tp2;
}

/// A run's kernel time, split where 2-D TP splits each block: `first`, the kernels whose
/// chunks start the hidden all-reduce (up's forward, down's gradients backward); `rest`, the
/// others; `weights`, the weight gradients beside the block's last collective.
struct RunKernels {
  Op first, rest, weights;
};

/// The run's kernels in tp_overlap_chunks chunks beside their shares of the run's overlapped
/// TP collectives, then its weight gradients, its serial collectives and the wait for the TP
/// streams: the blocks' pipelines (sim/program.cpp) as one, in a block's order, which is the
/// same time when every block is on the same side (kernels longer than their collectives, or
/// shorter). The gathers' shares start first, as a block starts all its gathers' chunks
/// before its first kernel, whose chunk j waits for those its rows need beyond the GPU's own
/// shard (gathered_chunks_needed). Under 2-D TP the first kernels' chunks each start their
/// share of the hidden all-reduce, and chunk j of the rest waits for the first j + 1 of
/// them, as the down matmul's chunks do. A reduction of the block's output follows the chunk
/// it reduces, so only its last share is left after the run, as in fine mode only each
/// block's last one is.
void fold_overlapped(const RunKernels& kernels, const std::vector<Op>& serial,
                     const std::vector<Op>& background, const ExecutionSpec& e, Program& out) {
  const int k = e.tp_overlap_chunks;
  // Starts chunk j's share of the collectives `which` picks; returns the stream entries.
  auto share = [&](int j, auto which) {
    int started = 0;
    for (Op op : background) {
      if (!which(op)) continue;
      op.count = op.count / k + (j < op.count % k ? 1 : 0);
      if (op.count == 0) continue;
      out.push_back(op);
      ++started;
    }
    return started;
  };
  auto chunk = [&](const Op& kernel) {
    Op part = kernel;
    part.duration = kernel.duration / static_cast<double>(k);
    out.push_back(part);
  };
  auto gather = [](const Op& op) { return op.collective == CollectiveOp::all_gather; };
  auto hidden = [](const Op& op) { return op.group == GroupKind::tp2; };
  auto output = [](const Op& op) { return !feeds_its_block(op); };
  // through[j]: the first axis's stream entries through chunk j's share of the gathers;
  // hidden_through[j], the second axis's through chunk j's share of the hidden all-reduce.
  std::vector<int> through, hidden_through;
  for (int j = 0; j < k; ++j) through.push_back((j > 0 ? through.back() : 0) + share(j, gather));
  auto wait_gathers = [&](int j) {
    int needed = through.back() > 0 ? gathered_chunks_needed(j, k, e.tp) : 0;
    if (needed > 0)
      out.push_back(wait_stream(GroupKind::tp, through[static_cast<size_t>(needed - 1)]));
  };
  bool split = kernels.first.duration > Seconds();
  for (int j = 0; split && j < k; ++j) {
    wait_gathers(j);
    chunk(kernels.first);
    hidden_through.push_back((j > 0 ? hidden_through.back() : 0) + share(j, hidden));
  }
  for (int j = 0; j < k; ++j) {
    if (!split)
      wait_gathers(j);
    else if (hidden_through[static_cast<size_t>(j)] > 0)
      out.push_back(wait_stream(GroupKind::tp2, hidden_through[static_cast<size_t>(j)]));
    chunk(kernels.rest);
    share(j, output);
  }
  if (kernels.weights.duration > Seconds()) out.push_back(kernels.weights);
  out.insert(out.end(), serial.begin(), serial.end());
  out.push_back(wait_stream(GroupKind::tp, 0));
}

/// Folds one run into one compute op plus one op per distinct collective (in order of first
/// appearance), each with its count.
void fold_run(Program::const_iterator begin, Program::const_iterator end, const ExecutionSpec& e,
              Program& out) {
  if (begin == end) return;
  Op total{OpKind::compute, GroupKind::tp, CollectiveOp::all_reduce, begin->forward, 1,
           Seconds(),       Bytes()};
  total.microbatch = begin->microbatch;
  total.chunk = begin->chunk;
  RunKernels kernels{total, total, total};
  kernels.weights.kind = OpKind::weight_gradients;
  std::vector<Op> serial, background;
  for (auto it = begin; it != end; ++it) {
    bool starts_hidden = it + 1 != end && (it + 1)->kind == OpKind::start_collective &&
                         (it + 1)->group == GroupKind::tp2;
    if (it->kind == OpKind::compute)
      (starts_hidden ? kernels.first : kernels.rest).duration += it->duration;
    if (it->kind == OpKind::weight_gradients) kernels.weights.duration += it->duration;
    if (it->kind == OpKind::collective) tally(serial, *it);
    if (it->kind == OpKind::start_collective) tally(background, *it);
  }
  if (!background.empty()) return fold_overlapped(kernels, serial, background, e, out);
  total.duration = kernels.first.duration + kernels.rest.duration + kernels.weights.duration;
  if (total.duration > Seconds()) out.push_back(total);
  out.insert(out.end(), serial.begin(), serial.end());
}

/// A run ends at an op that does not fold. Under TP overlap it also ends where the passes
/// change direction (a stage without pipeline transfers): a forward pass exposes its
/// pipeline's last chunk, a backward hides it behind a weight gradient, and one pipeline for
/// both would hide both.
Program::const_iterator run_end(Program::const_iterator begin, Program::const_iterator end) {
  auto stop = std::find_if_not(begin, end, foldable);
  if (std::none_of(begin, stop, on_tp_stream)) return stop;
  return std::find_if(begin, stop, [&](const Op& op) { return op.forward != begin->forward; });
}

} // namespace

Program fold(const Program& fine, const ExecutionSpec& e) {
  Program out;
  auto it = fine.begin();
  while (it != fine.end()) {
    auto end = run_end(it, fine.end());
    fold_run(it, end, e, out);
    if (end != fine.end() && !foldable(*end)) out.push_back(*end++);
    it = end;
  }
  return out;
}

} // namespace trainsim::sim::detail
