// Fast mode's folding of a stage program (models/step_program.hpp): each run of kernels and
// collectives between two pipeline transfers (or DP bucket starts) becomes a few ops. It knows
// no overlap rule: serial ops are summed, overlapped blocks that repeat are scaled.
#include <algorithm>
#include <utility>
#include <vector>

#include "models/gpu_speed.hpp"
#include "models/step_program.hpp"

namespace trainsim::program_detail {
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
         a.bytes == b.bytes && a.to_experts == b.to_experts && a.in_rounds == b.in_rounds;
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

bool same_step(const Op& a, const Op& b) {
  return a.kind == b.kind && a.group == b.group && a.collective == b.collective &&
         a.forward == b.forward && a.count == b.count && a.duration == b.duration &&
         a.bytes == b.bytes && a.microbatch == b.microbatch && a.chunk == b.chunk &&
         a.routed == b.routed && a.to_experts == b.to_experts && a.in_rounds == b.in_rounds;
}

using Block = std::pair<Program::const_iterator, Program::const_iterator>;

bool same_block(const Block& a, const Block& b) {
  return a.second - a.first == b.second - b.first &&
         std::equal(a.first, a.second, b.first, same_step);
}

/// The run cut after each full wait on a TP stream: under tp_overlap every block (a layer's
/// attention or MLP, models/step_program_overlap.cpp) ends with one.
std::vector<Block> blocks_of(Program::const_iterator begin, Program::const_iterator end) {
  std::vector<Block> out;
  for (auto it = begin; it != end;) {
    auto last = std::find_if(it, end, [](const Op& op) {
      return op.kind == OpKind::wait_collectives && op.count == 0 && tensor_parallel(op.group);
    });
    auto stop = last == end ? end : last + 1;
    out.emplace_back(it, stop);
    it = stop;
  }
  return out;
}

/// Layers share a block pattern of at most this many blocks (attention, MLP, an expert block).
constexpr size_t kLongestPattern = 4;

/// `pattern` once for `times` repetitions of it: each kernel `times` as long, each collective
/// `times` as many back to back. The waits keep their counts: they count stream entries, and
/// the pattern starts as many entries as each of its repetitions did.
void emit_repeated(const std::vector<Block>& pattern, int times, Program& out) {
  for (const Block& b : pattern)
    for (auto it = b.first; it != b.second; ++it) {
      Op op = *it;
      if (times > 1) {
        op.layer = -1;
        if (op.kind == OpKind::compute || op.kind == OpKind::weight_gradients)
          op.duration = op.duration * static_cast<double>(times),
          op.routed = op.routed * static_cast<double>(times);
        if (op.kind == OpKind::collective || op.kind == OpKind::start_collective)
          op.count *= times;
      }
      out.push_back(op);
    }
}

/// A run whose collectives overlap its kernels (tp_overlap): each repetition of a pattern of
/// identical blocks becomes the pattern once, every op scaled by the repetitions. A block's
/// time is a max-plus expression of its kernels and collectives, each linear in the scale, so
/// without contention the scaled pattern takes exactly the repetitions' time, whatever overlaps
/// what inside it; blocks that do not repeat stay as they are.
void fold_repeats(Program::const_iterator begin, Program::const_iterator end, Program& out) {
  std::vector<Block> blocks = blocks_of(begin, end);
  for (size_t i = 0; i < blocks.size();) {
    size_t best_period = 1, best_times = 1;
    for (size_t p = 1; p <= kLongestPattern && i + 2 * p <= blocks.size(); ++p) {
      size_t times = 1;
      while (i + (times + 1) * p <= blocks.size() &&
             std::equal(blocks.begin() + static_cast<long>(i), blocks.begin() + static_cast<long>(i + p),
                        blocks.begin() + static_cast<long>(i + times * p), same_block))
        ++times;
      if (times > 1 && times * p > best_times * best_period) best_period = p, best_times = times;
    }
    emit_repeated({blocks.begin() + static_cast<long>(i),
                   blocks.begin() + static_cast<long>(i + best_period)},
                  static_cast<int>(best_times), out);
    i += best_period * best_times;
  }
}

/// Folds one run. Serial kernels and collectives take the sum of their times in any order,
/// so a run without overlap becomes one compute op plus one op per distinct collective (in
/// order of first appearance), each with its count, unless one of its collectives is of a
/// kind in `in_order` (its group spans nodes: where it starts among the kernels decides which
/// other traffic it meets, a pipeline transfer still in flight, a stream's reduction), which
/// keeps the run as it is; one with overlap, its repeated blocks' pattern (fold_repeats).
void fold_run(Program::const_iterator begin, Program::const_iterator end, GroupKinds in_order,
              Program& out) {
  if (begin == end) return;
  // An overlapped run's scaled pattern keeps each layer's order of kernels and collectives, so
  // it folds wherever its groups are; kept in order, a 2-D TP plan across nodes would run
  // billions of ops (the 1e26 frontier replay: 2.2e9 against 2e5).
  if (std::any_of(begin, end, on_tp_stream)) return fold_repeats(begin, end, out);
  if (std::any_of(begin, end, [in_order](const Op& op) {
        return op.kind == OpKind::collective && (in_order & kinds_bit(op.group)) != 0;
      }))
    return out.insert(out.end(), begin, end), void();
  Op total{OpKind::compute, GroupKind::tp, CollectiveOp::all_reduce, begin->forward, 1,
           Seconds(),       Bytes()};
  total.microbatch = begin->microbatch;
  total.chunk = begin->chunk;
  std::vector<Op> serial;
  for (auto it = begin; it != end; ++it) {
    if (it->kind == OpKind::compute || it->kind == OpKind::weight_gradients)
      total.duration += it->duration, total.routed += it->routed;
    if (it->kind == OpKind::collective) tally(serial, *it);
  }
  if (total.duration > Seconds()) out.push_back(total);
  out.insert(out.end(), serial.begin(), serial.end());
}

/// A run ends at an op that does not fold, and where the pass changes (its microbatch, chunk
/// or direction): merged across passes, a stage without pipeline transfers (pp 1) ran every
/// kernel of the step before any of its collectives, so the traffic of a stream beside the
/// passes (the delayed update's reduction, the gradient buckets) met none of them, where fine
/// mode's met every pass it overlapped: random scenario 29 of validate's section 6 (tp 4,
/// delayed update, on a torus) stepped 126 ms fast against 155 ms fine.
Program::const_iterator run_end(Program::const_iterator begin, Program::const_iterator end) {
  auto stop = std::find_if_not(begin, end, foldable);
  return std::find_if(begin, stop, [&](const Op& op) {
    return op.forward != begin->forward || op.microbatch != begin->microbatch ||
           op.chunk != begin->chunk;
  });
}

} // namespace

Program fold(const Program& fine, GroupKinds in_order) {
  Program out;
  auto it = fine.begin();
  while (it != fine.end()) {
    auto end = run_end(it, fine.end());
    fold_run(it, end, in_order, out);
    if (end != fine.end() && !foldable(*end)) out.push_back(*end++);
    it = end;
  }
  return out;
}

} // namespace trainsim::program_detail

namespace trainsim {

namespace {

// A TP axis's stream (tp_overlap) stays inside its block, whose fold keeps its splits
// (fold_overlapped); any other background stream runs beside the passes.
bool meets_outside_traffic(const Program& fine) {
  return std::any_of(fine.begin(), fine.end(), [](const Op& op) {
    bool transfer = op.kind == OpKind::send || op.kind == OpKind::recv;
    bool beside = op.kind == OpKind::start_collective && op.group != GroupKind::tp &&
                  op.group != GroupKind::tp2;
    return transfer || beside;
  });
}

} // namespace

GroupKinds kinds_kept_in_order(const Scenario& s, const Program& fine, int gpus_per_node) {
  bool met = meets_outside_traffic(fine) || slowest_gpu(s) > 1.0;
  return met ? kinds_across_nodes(s.execution, gpus_per_node) : GroupKinds{0};
}

Program fast_program(const Scenario& s, const Program& fine, int gpus_per_node) {
  return program_detail::fold(fine, kinds_kept_in_order(s, fine, gpus_per_node));
}

} // namespace trainsim
