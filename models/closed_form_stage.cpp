#include "models/closed_form_stage.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

#include "models/collective_cost.hpp"
#include "models/step_program.hpp"

namespace trainsim::bound {
namespace {

// The bound's price of the all-to-all `name` (the scenario rules have checked the name).
ExchangePrice exchange_price(const std::string& name) {
  const CollectiveInfo* info = find_collective(name);
  TRAINSIM_CHECK(info != nullptr && info->exchange != nullptr,
                 "no all-to-all price for collective '" + name + "'");
  return info->exchange;
}

// A segment of a pass under tp_overlap takes at least its main stream and at least its TP
// stream, which runs beside it; what the stream takes beyond the main one is TP time.
Split beside(const Split& main, const Split& stream) {
  Seconds excess = stream.total() - main.total();
  if (excess <= Seconds()) return main;
  return main + stream * (excess / stream.total());
}

Split longer(const Split& a, const Split& b) { return a.total() >= b.total() ? a : b; }

// Kernel time `t` in the proportions of the kernels `like`.
Split kernels_like(Seconds t, const Split& like) {
  if (like.total() <= Seconds()) {
    Split s;
    s.compute = t;
    return s;
  }
  return like * (t / like.total());
}

// How one group kind's collectives are priced: its members, the tiers of the stage's groups
// of that kind, the algorithm it runs and the Split field its traffic goes to.
struct GroupPrice {
  int members = 1;
  const std::vector<GroupTiers>* tiers = nullptr;
  const std::string* algorithm = nullptr;
  Seconds Split::*field = &Split::tp;
  int name = 0; ///< its entry in kNames
};

// TierNames' fields, by GroupPrice::name.
constexpr std::array<std::string TierNames::*, 6> kNames{&TierNames::tp,   &TierNames::ep,
                                                         &TierNames::zero, &TierNames::dp,
                                                         &TierNames::edp,  &TierNames::cp};

class Pricer {
public:
  Pricer(const Scenario& s, int stage, const StageFabric& f)
      : s_(s), f_(f), nvlink_(collective_efficiency(s)),
        exchange_(exchange_price(s.execution.ep_collective)), routing_(expert_routing(s.model)) {
    LayerTimes t = layer_times(s);
    BlockTime embedding = embedding_time(s), head = head_time(s);
    layer_like_[1] = kernels(t.attention.forward) + kernels(t.mlp.forward);
    layer_like_[0] = kernels(t.attention.backward) + kernels(t.mlp.backward);
    once_like_ = kernels(t.attention.per_step) + kernels(t.mlp.per_step);
    // The stage's own vocabulary kernels: the embedding on the first, the LM head on the last.
    bool first = stage == 0, last = stage == s.execution.head_stage();
    for (bool forward : {false, true}) {
      KernelTime vocabulary;
      if (first) vocabulary += forward ? embedding.forward : embedding.backward;
      if (last) vocabulary += forward ? head.forward : head.backward;
      vocabulary_like_[forward ? 1 : 0] = kernels(vocabulary);
    }
    optimizer_like_ = kernels(optimizer_time(s, stage));
    int chunks = s.execution.chunks();
    price_.forward.resize(static_cast<size_t>(chunks));
    price_.backward.resize(static_cast<size_t>(chunks));
    priced_.assign(2 * static_cast<size_t>(chunks), false);
  }

  StagePrice run(const Program& program) {
    for (size_t i = 0; i < program.size();)
      i = program[i].microbatch >= 0 ? pass(program, i) : outside(program[i], i);
    price_.after += last_buckets_;
    // Each group kind's tier: the one its largest share of transfer time was priced at.
    std::array<Seconds, kNames.size()> best{};
    for (const auto& [key, transfer] : tiers_) {
      auto slot = static_cast<size_t>(key.first);
      if (transfer <= best[slot]) continue;
      best[slot] = transfer;
      price_.names.*kNames[slot] = key.second;
    }
    return std::move(price_);
  }

private:
  [[nodiscard]] GroupPrice group(GroupKind kind, bool in_pass) const {
    const ExecutionSpec& e = s_.execution;
    switch (kind) {
    case GroupKind::tp:
      return {e.tp, &f_.tp, &e.tp_collective};
    case GroupKind::tp2:
      return {e.tp_2d, &f_.tp2, &e.tp_collective};
    case GroupKind::etp:
      return {e.expert_tp(), &f_.etp, &e.tp_collective};
    case GroupKind::cp:
      return {e.cp, &f_.cp, &e.dp_collective, &Split::cp, 5};
    case GroupKind::edp:
      return {e.expert_replicas(), &f_.edp, &e.dp_collective, &Split::edp, 4};
    case GroupKind::dp:
      // In the passes the DP group's collectives are ZeRO-3's gathers and reductions.
      return in_pass ? GroupPrice{e.weight_replicas(), &f_.dp, &e.dp_collective, &Split::zero, 2}
                     : GroupPrice{e.weight_replicas(), &f_.dp, &e.dp_collective, &Split::dp, 3};
    case GroupKind::ep:
      break;
    }
    // The all-gather dispatcher's gathers and reductions take NCCL's ring over EP's tiers.
    static const std::string ring = default_collective(CollectiveOp::all_gather);
    return {e.ep, &f_.ep_rings, &ring, &Split::ep, 1};
  }

  // `op`'s collectives at the stage's cheapest group of its kind, or its dearest.
  Split collective(const Op& op, bool in_pass, bool dearest) {
    GroupPrice g = group(op.group, in_pass);
    if (op.collective == CollectiveOp::all_to_all) {
      // Under ep_overlap a pass's all-to-alls may all hide behind the paired pass's kernels.
      if (g.members <= 1 || s_.execution.ep_overlap) return Split{};
      CollectiveCost c = exchange_(op.bytes, g.members, f_.ep, f_.ep_rings, routing_);
      tiers_[{g.name, c.tier}] += c.transfer * op.count;
      return split_of(c, &Split::ep) * op.count;
    }
    int phases = op.collective == CollectiveOp::all_reduce ? 2 : 1;
    auto price = dearest ? trainsim::dearest : trainsim::cheapest;
    CollectiveCost c = price(*g.algorithm, phases, op.bytes, g.members, *g.tiers, nvlink_);
    tiers_[{g.name, c.tier}] += c.transfer * op.count;
    return split_of(c, g.field) * op.count;
  }

  // One microbatch's forward or backward of one chunk, from `first`; returns the op after it.
  size_t pass(const Program& program, size_t first) {
    const Op& head = program[first];
    Split total, main;
    std::array<Split, 2> stream; // each TP axis's stream
    auto close = [&] {
      total += beside(main, longer(stream[0], stream[1]));
      main = stream[0] = stream[1] = Split{};
    };
    size_t i = first;
    for (; i < program.size() && same_pass(program[i], head); ++i) {
      const Op& op = program[i];
      bool forward = op.forward;
      switch (op.kind) {
      case OpKind::recv:
        if (gathers_after(program, i)) price_.receive = collective(program[++i], true, false);
        price_.transfer = f_.pp_send.alpha + op.bytes / f_.pp_send.bandwidth;
        break;
      case OpKind::compute:
      case OpKind::weight_gradients:
        if (op.per_step) {
          price_.once += kernels_like(op.duration, once_like_);
          break;
        }
        main +=
            kernels_like(op.duration, (op.layer >= 0 ? layer_like_ : vocabulary_like_)[forward]);
        last_buckets_ = Split{};
        break;
      case OpKind::collective:
        main += collective(op, true, false);
        break;
      case OpKind::start_collective:
        if (tensor_parallel(op.group)) {
          // What the main stream ran before the segment's first start, nothing ran beside.
          if (stream[0].total() + stream[1].total() <= Seconds()) close();
          stream[op.group == GroupKind::tp2 && !f_.tp_axes_queue ? 1 : 0] +=
              collective(op, true, false);
        } else
          last_buckets_ += collective(op, false, true);
        break;
      case OpKind::wait_collectives:
        if (tensor_parallel(op.group) && op.count == 0) close();
        break;
      case OpKind::send:
      case OpKind::wait_sends:
      // Activation offloading's copies run beside the kernels: the bound leaves out any wait
      // for them, which stays a lower bound.
      case OpKind::start_copy:
      case OpKind::wait_copies:
        break;
      }
    }
    close();
    size_t slot = 2 * static_cast<size_t>(head.chunk) + (head.forward ? 1 : 0);
    if (!priced_[slot]) {
      priced_[slot] = true;
      (head.forward ? price_.forward : price_.backward)[static_cast<size_t>(head.chunk)] = total;
    }
    passes_started_ = true;
    return i;
  }

  // An op outside the passes: before them, the DP stream's early collectives; after them,
  // the gradient sync and the optimizer.
  size_t outside(const Op& op, size_t i) {
    if (op.kind == OpKind::start_collective)
      (passes_started_ ? price_.after : price_.beside) += collective(op, false, true);
    if (op.kind == OpKind::collective) price_.after += collective(op, false, true);
    if (op.kind == OpKind::compute) price_.optimizer += kernels_like(op.duration, optimizer_like_);
    return i + 1;
  }

  static bool same_pass(const Op& a, const Op& b) {
    return a.microbatch == b.microbatch && a.chunk == b.chunk && a.forward == b.forward;
  }
  // Whether the receive at `i` is completed by a TP all-gather (scatter/gather): one outside
  // the layers, whose sequence-parallel gathers belong to a layer.
  static bool gathers_after(const Program& program, size_t i) {
    if (i + 1 >= program.size()) return false;
    const Op& next = program[i + 1];
    return next.kind == OpKind::collective && next.group == GroupKind::tp &&
           next.collective == CollectiveOp::all_gather && next.layer < 0 &&
           same_pass(next, program[i]);
  }

  const Scenario& s_;
  const StageFabric& f_;
  const CollectiveEfficiency* nvlink_;
  ExchangePrice exchange_; ///< the EP all-to-all's price (ep_collective's catalogue entry)
  ExpertRouting routing_; ///< what an all-to-all's price reads of the model
  std::array<Split, 2> layer_like_, vocabulary_like_; ///< by forward: [0] backward, [1] forward
  Split once_like_; ///< the layers' once-a-step kernels (BlockTime::per_step)
  Split optimizer_like_;
  StagePrice price_;
  std::vector<bool> priced_;
  bool passes_started_ = false;
  Split last_buckets_; ///< DP-stream collectives started since the last kernel of a pass
  std::map<std::pair<int, std::string>, Seconds> tiers_; ///< transfer time by name and tier
};

} // namespace

StagePrice price_stage(const Scenario& s, int stage, const StageFabric& f) {
  // Every microbatch's passes hold the same ops, and the ops outside the passes do not depend
  // on how many there are: a short step's program prices the stage.
  const ExecutionSpec& e = s.execution;
  long m = std::min(e.microbatches(), e.shortest_microbatches());
  // Under ep_overlap the passes are priced one at a time, as without it (their all-to-alls
  // left out), in the order it runs them (pipeline_finish's extra warm-up forward).
  Scenario priced = program_detail::with_microbatches(s, m);
  priced.execution.ep_overlap = false;
  return Pricer(s, stage, f).run(stage_program(priced, stage, false));
}

} // namespace trainsim::bound
