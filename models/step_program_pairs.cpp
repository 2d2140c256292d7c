// Megatron-Core's combined 1F1B (execution.ep_overlap; Megatron-LM's docs/user-guide/features/
// moe_a2a_overlap.md at fc81b209): a steady-state forward and the backward after it run
// together, the forward's layers first to last beside the backward's last to first, each
// layer pair on two streams: the kernels on the GPU's, the expert all-to-alls on an EP
// stream, so that one pass's dispatch and combine run beside the other's kernels.
#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "models/step_program_blocks.hpp"

namespace trainsim::program_detail {
namespace {

bool is_all_to_all(const Op& op) {
  return op.kind == OpKind::collective && op.group == GroupKind::ep &&
         op.collective == CollectiveOp::all_to_all;
}

// A pass cut at its layers: what runs before the first (a receive, the embedding, the LM
// head's backward), each layer's ops in the order it runs them, and what runs after the last.
// Untagged ops between layers go with the next layer in a forward (its parameters' waits) and
// with the previous one in a backward (its gradient buckets).
struct Cut {
  std::vector<Op> before, after;
  std::vector<std::vector<Op>> layers;
};

Cut cut(const std::vector<Op>& ops, bool forward) {
  Cut c;
  auto tagged = [](const Op& op) { return op.layer >= 0; };
  auto first = std::find_if(ops.begin(), ops.end(), tagged);
  auto last = std::find_if(ops.rbegin(), ops.rend(), tagged).base();
  c.before.assign(ops.begin(), first);
  if (first == ops.end()) return c;
  c.after.assign(last, ops.end());
  std::vector<Op> pending; // a forward's untagged ops, for the next layer
  int current = -1;
  for (auto it = first; it != last; ++it) {
    if (!tagged(*it)) {
      (forward ? pending : c.layers.back()).push_back(*it);
      continue;
    }
    if (it->layer != current) {
      c.layers.push_back(std::exchange(pending, {}));
      current = it->layer;
    }
    c.layers.back().push_back(*it);
  }
  return c;
}

// A layer's ops around its expert block's two all-to-alls: before the first, the first,
// between them, the second, after it. A dense layer is all `before`. `delayed`: the weight
// gradients delay_wgrad_compute ran apart at the end of `between`, which a backward runs
// after starting its second all-to-all instead.
struct Around {
  std::vector<Op> before, between, after, delayed;
  std::optional<Op> first, second;
};

Around around(const std::vector<Op>& ops) {
  Around a;
  auto one = std::find_if(ops.begin(), ops.end(), is_all_to_all);
  auto two = one == ops.end() ? ops.end() : std::find_if(one + 1, ops.end(), is_all_to_all);
  if (two == ops.end()) {
    a.before = ops;
    return a;
  }
  a.before.assign(ops.begin(), one);
  a.first = *one;
  auto apart =
      std::find_if(one + 1, two, [](const Op& op) { return op.kind == OpKind::weight_gradients; });
  a.between.assign(one + 1, apart);
  a.delayed.assign(apart, two);
  a.second = *two;
  a.after.assign(two + 1, ops.end());
  return a;
}

// The EP stream of one layer pair: all-to-alls started in order, waits by position.
class EpStream {
public:
  explicit EpStream(std::vector<Op>& out) : out_(out) {}
  /// Starts `op` if there is one; returns its position on the stream (0: none).
  int start(const std::optional<Op>& op) {
    if (!op) return 0;
    Op started = *op;
    started.kind = OpKind::start_collective;
    out_.push_back(started);
    return ++started_;
  }
  void wait_for(int position) {
    if (position > 0) out_.push_back(wait_stream(GroupKind::ep, position));
  }
  void wait_all() {
    if (started_ > 0) out_.push_back(wait_stream(GroupKind::ep, 0));
    started_ = 0;
  }

private:
  std::vector<Op>& out_;
  int started_ = 0;
};

void append(std::vector<Op>& out, const std::vector<Op>& ops) {
  out.insert(out.end(), ops.begin(), ops.end());
}

// One forward layer F and one backward layer B, as Megatron-Core issues them: F's attention,
// B's combine, F's dispatch, B's expert gradients, B's dispatch, F's experts, F's combine,
// B's attention. Under delay_wgrad_compute B's experts' weight gradients follow B's dispatch,
// beside it (Megatron-Core's TransformerLayerSchedulePlan.run: mlp.backward, then
// mlp.backward_dw beside the dispatch's backward). Each kernel waits for the all-to-all it needs;
// the all-to-alls run in order on the EP stream. B's combine (its first all-to-all) needs nothing
// of this pair, so it starts before F's attention; F's ops after its combine wait for it at the
// pair's end.
void pair(std::vector<Op>& out, const std::vector<Op>& forward, const std::vector<Op>& backward) {
  Around f = around(forward), b = around(backward);
  EpStream ep(out);
  append(out, b.before);
  int b_combine = ep.start(b.first);
  append(out, f.before);
  int f_dispatch = ep.start(f.first);
  ep.wait_for(b_combine);
  append(out, b.between);
  int b_dispatch = ep.start(b.second);
  append(out, b.delayed);
  ep.wait_for(f_dispatch);
  append(out, f.between);
  ep.start(f.second);
  ep.wait_for(b_dispatch);
  append(out, b.after);
  ep.wait_all();
  append(out, f.after);
}

} // namespace

std::vector<Op> paired(const std::vector<Op>& forward, const std::vector<Op>& backward) {
  Cut f = cut(forward, true), b = cut(backward, false);
  std::vector<Op> out = f.before;
  append(out, b.before);
  size_t both = std::min(f.layers.size(), b.layers.size());
  for (size_t k = 0; k < both; ++k) pair(out, f.layers[k], b.layers[k]);
  for (size_t k = both; k < f.layers.size(); ++k) append(out, f.layers[k]);
  for (size_t k = both; k < b.layers.size(); ++k) append(out, b.layers[k]);
  append(out, f.after);
  append(out, b.after);
  return out;
}

} // namespace trainsim::program_detail
