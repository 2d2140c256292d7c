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
  return op.kind == OpKind::compute || op.kind == OpKind::collective || on_tp_stream(op);
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

/// The run's kernels in kTpOverlapChunks chunks, each starting its share of the run's
/// overlapped TP collectives, then the run's serial collectives and the wait for the TP
/// stream: the blocks' pipelines (sim/program.cpp) as one, which is the same time when every
/// block is on the same side (kernels longer than their collectives, or shorter). The all-
/// gathers a chunk waits for under sequence parallelism follow it here instead.
void fold_overlapped(const Op& total, const std::vector<Op>& serial,
                     const std::vector<Op>& background, Program& out) {
  constexpr int k = kTpOverlapChunks;
  for (int j = 0; j < k; ++j) {
    Op part = total;
    part.duration = total.duration / static_cast<double>(k);
    out.push_back(part);
    for (Op op : background) {
      op.count = op.count / k + (j < op.count % k ? 1 : 0);
      if (op.count > 0) out.push_back(op);
    }
  }
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
  std::vector<Op> serial, background;
  for (auto it = begin; it != end; ++it) {
    if (it->kind == OpKind::compute) total.duration += it->duration;
    if (it->kind == OpKind::collective) tally(serial, *it);
    if (it->kind == OpKind::start_collective) tally(background, *it);
  }
  if (!background.empty()) return fold_overlapped(total, serial, background, out);
  if (total.duration > Seconds()) out.push_back(total);
  out.insert(out.end(), serial.begin(), serial.end());
}

} // namespace

Program fold(const Program& fine) {
  Program out;
  auto it = fine.begin();
  while (it != fine.end()) {
    auto run_end = std::find_if_not(it, fine.end(), foldable);
    fold_run(it, run_end, out);
    if (run_end != fine.end()) out.push_back(*run_end++);
    it = run_end;
  }
  return out;
}

} // namespace trainsim::sim::detail
