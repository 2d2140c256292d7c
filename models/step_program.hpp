// What one GPU does in a training step, as a list of ops for the actor to interpret. Built
// per pipeline stage (every GPU of a stage runs the same ops with its own peers) from the
// workload costs and the pipeline schedule; no SimGrid here.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "models/layout.hpp"
#include "models/scenario.hpp"
#include "models/workload.hpp"
#include "models/collectives.hpp"

namespace trainsim {

enum class OpKind : std::uint8_t {
  compute,          ///< kernels for `duration`
  weight_gradients, ///< kernels for `duration` that no later op of their block waits for: run
                    ///< as compute, but after the splits under tp_overlap (models/step_program.cpp),
                    ///< or, delay_wgrad_compute's, after a paired backward's dispatch starts
  collective,       ///< `count` back-to-back collectives of `bytes` over `group`
  start_collective, ///< the same, started in the background: on the DP stream (gradient
                    ///< buckets) or, for `group` tp or tp2, that axis's stream (tp_overlap)
  wait_collectives, ///< wait on `group`'s stream: for the first `count` started since its last
                    ///< full wait, or for all of them when `count` is 0 (both TP axes' for
                    ///< either)
  recv,             ///< receive a pipeline message (activation if `forward`, else gradient)
  send,             ///< send one, without waiting
  wait_sends,       ///< wait until every pipeline send has been delivered
  start_copy,       ///< activation offloading: copy `bytes` for `duration` on the copy stream
                    ///< of its direction (`forward`: to the host's memory, else back)
  wait_copies,      ///< wait on a direction's copy stream, as wait_collectives on a group's
};

struct Op {
  OpKind kind = OpKind::compute;
  GroupKind group = GroupKind::tp;
  CollectiveOp collective = CollectiveOp::all_reduce;
  bool forward = true;
  int count = 1;
  Seconds duration;
  Bytes bytes;
  // Where the op belongs, for traces: the pipeline pass (-1 outside passes) and its layer
  // (-1 when folded over the pass's layers).
  int microbatch = -1;
  int chunk = 0;
  int layer = -1;
  /// An expert all-to-all that carries tokens (or, backward, their outputs' gradients) to
  /// their experts: each member sends a peer as much as that peer's experts take; else back
  /// from them, as much as its own take. Set only under routing imbalance: balanced, both
  /// directions move the same bytes and fast mode folds them into one op.
  bool to_experts = false;
  /// Kernels that run once a step, in their chunk's first forward (FP8 weight casts,
  /// BlockTime::per_step): the bound prices them once, not with every microbatch's pass.
  bool per_step = false;
  /// A collective whose ring fast mode runs in up to kMaxRoundsInRounds rounds instead of one
  /// merged flow per member: one that runs beside a whole step's passes (the delayed
  /// update's), meeting traffic that comes and goes. Each round of a ring waits for its
  /// slowest member then, while merged flows each average out their own contention (docs/
  /// fast-mode.md, "The delayed update's rings keep rounds").
  bool in_rounds = false;
  /// Of a compute op's `duration`, the kernels whose work follows the routed tokens the GPU's
  /// experts receive: the simulator scales it by the GPU's expert load (models/moe_load.hpp).
  Seconds routed{};
};
// Programs hold millions of ops: the three fields above sit in what was padding.
static_assert(sizeof(Op) <= 48, "an Op grew: fine-mode programs are memory-bound");

using Program = std::vector<Op>;

/// The rounds fast mode keeps of an in_rounds ring (Op::in_rounds): each carries 1/32 of its
/// rounds' bytes. Validate's random scenario 288 (an MoE MLP, ep 4 across nodes, dp 128,
/// delayed update; its expert DP ring all-reduces in 62 rounds) steps 3.3% short of fine mode
/// merged into one round, 1.2% in 8, 1.1% in 16, 0.5% in 32 and 0% in all 62; a 256-GPU dp
/// ring in all its 510 rounds made fast mode cost fine mode's 171 CPU s (random 119; 2.4 s in
/// 32 rounds, 1.1 s merged).
inline constexpr int kMaxRoundsInRounds = 32;

/// The step of pipeline stage `stage`: one op per kernel, collective and transfer. With
/// `fold`, each run of kernels and collectives between two pipeline transfers (or bucket
/// starts) becomes one compute op plus one op per distinct collective with its count: the
/// same work and latencies in far fewer SimGrid activities (docs/fast-mode.md). A run with
/// a collective of a kind in `in_order` keeps its ops as they are: the simulator names the
/// groups whose traffic crosses nodes, where when a collective starts decides what it meets.
Program stage_program(const Scenario& scenario, int stage, bool fold, GroupKinds in_order = 0);

/// The group kinds whose runs fast mode keeps in order (stage_program's `in_order`): those
/// whose groups span nodes (kinds_across_nodes), where a stage's `fine` program meets traffic
/// from outside a run: pipeline transfers, collectives started on a stream other than a TP
/// axis's (the DP stream's buckets and gathers, the delayed update's reduction), or GPUs of
/// unequal speed. Read off the program, not the options that put those ops there. Without
/// any, every rank runs the same program at the same pace, each collective meets its own
/// kind's traffic wherever it starts, and the folded run takes the fine run's time: none.
GroupKinds kinds_kept_in_order(const Scenario& scenario, const Program& fine, int gpus_per_node);

/// Fast mode's program of a stage: its `fine` program folded, keeping in order the runs
/// kinds_kept_in_order() names from it.
Program fast_program(const Scenario& scenario, const Program& fine, int gpus_per_node);

/// How many ops stage_program builds for the stage that holds the most: `fine` unfolded,
/// `folded` with `fold` on the scenario's nodes (models/step_program_size.cpp), or with `weight`
/// the sum of each op's weight. Counted from programs of two short steps, so asking costs the same
/// for any number of microbatches.
struct ProgramSize {
  double fine = 0;
  double folded = 0;
};
using OpWeight = std::function<double(const Op&)>;
ProgramSize program_size(const Scenario& scenario, const OpWeight& weight = {});

namespace program_detail {
/// `scenario` with `microbatches` per pipeline: only the global batch changes.
Scenario with_microbatches(const Scenario& scenario, long microbatches);
/// The folding stage_program applies with `fold` (models/step_program_fold.cpp).
Program fold(const Program& fine, GroupKinds in_order = 0);
/// The ops of one block (`ops`: its collectives and kernels in order) under tp_overlap, else
/// `ops` themselves; `beside`, the backward's first weight gradient, which runs after the
/// splits beside the block's last collective (models/step_program_overlap.cpp).
std::vector<Op> overlapped(const std::vector<Op>& ops, Seconds beside, const ExecutionSpec& e);
/// Under tp_overlap, how many splits of each all-gather split `split` of `splits` of a kernel
/// waits for, over an axis of `ranks`: the split's rows run to (split + 1) / splits of the
/// gathered input, of which 1 / ranks is the GPU's own shard, and each gather split brings
/// 1 / splits more, so ceil(split + 1 - splits / ranks), at least 0. Transformer Engine's
/// ring exchange has splits = ranks: split j waits for j.
int gathered_splits_needed(int split, int splits, int ranks);
/// Waits on `group`'s background stream (tp, or dp for the gradient buckets) until the first
/// `count` collectives started since its last full wait have finished; 0: all of them.
Op wait_stream(GroupKind group, int count);
} // namespace program_detail

} // namespace trainsim
