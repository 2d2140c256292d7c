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

/// The run's kernels in kTpOverlapChunks chunks, each beside its share of the run's
/// overlapped TP collectives, then its weight gradients, its serial collectives and the wait
/// for the TP streams: the blocks' pipelines (sim/program.cpp) as one, which is the same time
/// when every block is on the same side (kernels longer than their collectives, or shorter).
/// A chunk's share of the collectives that feed a kernel of their own block starts before
/// it, the others after: a gather's next shard moves while the GEMM runs on the one it has
/// (AxisInputs in sim/program.cpp), and 2-D TP's hidden all-reduce of one chunk while the up
/// matmul runs the next; a reduction of the block's output follows the GEMM it reduces.
/// Nothing waits for the collectives started before inside the run. Only the output's
/// reductions are left after the last chunk, as in fine mode only each block's last one is.
void fold_overlapped(const Op& total, const Op& weights, const std::vector<Op>& serial,
                     const std::vector<Op>& background, Program& out) {
  constexpr int k = kTpOverlapChunks;
  auto share = [&](int j, bool before) {
    for (Op op : background) {
      if (feeds_its_block(op) != before) continue;
      op.count = op.count / k + (j < op.count % k ? 1 : 0);
      if (op.count > 0) out.push_back(op);
    }
  };
  for (int j = 0; j < k; ++j) {
    share(j, true);
    Op part = total;
    part.duration = total.duration / static_cast<double>(k);
    out.push_back(part);
    share(j, false);
  }
  if (weights.duration > Seconds()) out.push_back(weights);
  out.insert(out.end(), serial.begin(), serial.end());
  out.push_back(wait_stream(GroupKind::tp, 0));
}

/// Folds one run into one compute op plus one op per distinct collective (in order of first
/// appearance), each with its count.
void fold_run(Program::const_iterator begin, Program::const_iterator end, Program& out) {
  if (begin == end) return;
  Op total{OpKind::compute, GroupKind::tp, CollectiveOp::all_reduce, begin->forward, 1,
           Seconds(),       Bytes()};
  total.microbatch = begin->microbatch;
  total.chunk = begin->chunk;
  Op weights = total;
  weights.kind = OpKind::weight_gradients;
  std::vector<Op> serial, background;
  for (auto it = begin; it != end; ++it) {
    if (it->kind == OpKind::compute) total.duration += it->duration;
    if (it->kind == OpKind::weight_gradients) weights.duration += it->duration;
    if (it->kind == OpKind::collective) tally(serial, *it);
    if (it->kind == OpKind::start_collective) tally(background, *it);
  }
  if (!background.empty()) return fold_overlapped(total, weights, serial, background, out);
  total.duration += weights.duration;
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

Program fold(const Program& fine) {
  Program out;
  auto it = fine.begin();
  while (it != fine.end()) {
    auto end = run_end(it, fine.end());
    fold_run(it, end, out);
    if (end != fine.end() && !foldable(*end)) out.push_back(*end++);
    it = end;
  }
  return out;
}

} // namespace trainsim::sim::detail
