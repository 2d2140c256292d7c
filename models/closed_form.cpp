#include "models/closed_form.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "models/collective_cost.hpp"
#include "models/error.hpp"
#include "models/pipeline_path.hpp"
#include "models/step_compute.hpp"
#include "models/workload.hpp"

namespace trainsim {
namespace {

// Time of a group of serial operations, split by the resource that sets each one's length,
// and network time by the group whose traffic it is. Kept split so that the bound can name
// what limits it; total() is what adds up.
struct Split {
  Seconds compute, hbm, latency;
  Seconds tp, ep, zero, dp, edp, cp; ///< bytes / bandwidth of each group's collectives
  [[nodiscard]] Seconds network() const { return tp + ep + zero + dp + edp + cp; }
  [[nodiscard]] Seconds total() const { return compute + hbm + latency + network(); }
  Split& operator+=(const Split& o) {
    compute += o.compute, hbm += o.hbm, latency += o.latency;
    tp += o.tp, ep += o.ep, zero += o.zero, dp += o.dp, edp += o.edp, cp += o.cp;
    return *this;
  }
};
Split operator*(Split s, double k) {
  return {s.compute * k, s.hbm * k, s.latency * k, s.tp * k, s.ep * k,
          s.zero * k,    s.dp * k,  s.edp * k,     s.cp * k};
}
Split operator+(Split a, const Split& b) { return a += b; }

// A collective's price (models/collective_cost.hpp) as a Split: `into` picks the group's
// network field.
Split split_of(const CollectiveCost& c, Seconds Split::*into) {
  Split s;
  s.latency = c.latency;
  s.*into = c.transfer;
  return s;
}

// A pairwise all-to-all of n bytes per rank: p-1 rounds of n/p bytes.
Split all_to_all(Bytes n, int p, const RoundsTier& t) {
  Split s;
  if (p <= 1) return s;
  s.latency = t.alpha;
  s.ep = Seconds(n.value() / p * t.seconds_per_byte);
  return s;
}

// Kernel time (models/step_compute.hpp, which the simulator replays too) as a Split: what the
// compute-bound and the HBM-bound kernels take, and their launches.
Split kernels(const KernelTime& k) {
  Split s;
  s.compute = k.compute, s.hbm = k.hbm, s.latency = k.overhead;
  return s;
}

// The tier each group's traffic was priced at, for the bound's explanation.
struct TierNames {
  std::string tp, ep, zero, dp, edp, cp;
};

// tp_overlap: a pass takes at least its kernels and at least its TP collectives, which run
// beside them on their own stream; what the collectives take beyond the kernels is TP time.
Split beside(const Split& kernels, const Split& tp) {
  Seconds excess = tp.total() - kernels.total();
  if (excess <= Seconds()) return kernels;
  return kernels + tp * (excess / tp.total());
}

Split longer(const Split& a, const Split& b) { return a.total() >= b.total() ? a : b; }

struct LayerSplit {
  Split forward, backward;
};

// One layer, one microbatch, as sim/program.cpp replays it: per block (attention, MLP) its
// kernels, then its TP all-reduce (sequence parallelism: an all-gather before and a
// reduce-scatter after, the same two phases; 2-D TP: the MLP's hidden all-reduce over the
// second axis between its matmuls too); an expert block adds an EP all-to-all before
// and after its kernels. Backward runs the blocks' gradient kernels and the same collectives;
// full recomputation first runs the forward again, its collectives too. ZeRO-3 gathers the
// layer's parameters over DP before each pass and reduce-scatters its gradients after the
// backward. Context parallelism all-gathers the keys and values before the attention core in
// both passes and reduce-scatters their gradients after the backward's. Collectives in the
// passes take the stage's cheapest group.
LayerSplit layer_split(const Scenario& s, const LayerCosts& c, const StageFabric& f,
                       TierNames& names) {
  const ExecutionSpec& e = s.execution;
  LayerTimes t = layer_times(s);
  Split forward = kernels(t.mlp.forward) + kernels(t.attention.forward);
  Split backward = kernels(t.mlp.backward) + kernels(t.attention.backward);
  const CollectiveEfficiency* nvlink = collective_efficiency(s);
  CollectiveCost tp = cheapest(e.tp_collective, 2, c.tp_allreduce, e.tp, f.tp, nvlink);
  Split first_axis = split_of(tp, &Split::tp) * c.tp_allreduces;
  // 2-D TP: the MLP's hidden all-reduce over the second axis, once per pass.
  CollectiveCost tp2 = e.tp_2d > 1
                           ? cheapest(e.tp_collective, 2, c.tp2_allreduce, e.tp_2d, f.tp2, nvlink)
                           : CollectiveCost{};
  Split second_axis = split_of(tp2, &Split::tp);
  Split tp_comms = first_axis + second_axis;
  Split comms; // the pass's collectives other than TP's
  if (e.ep > 1) comms += all_to_all(c.tp_allreduce * s.model.top_k, e.ep, f.ep) * 2.0;
  int replicas = e.weight_replicas();
  CollectiveCost zero =
      cheapest(e.dp_collective, 1, s.model.bytes_per_word * c.params, replicas, f.dp, nvlink);
  CollectiveCost zero_reduce = cheapest(e.dp_collective, 1, gradient_word(s.model, e) * c.params,
                                        replicas, f.dp, nvlink);
  CollectiveCost kv =
      e.cp > 1 ? cheapest(e.dp_collective, 1, c.cp_kv, e.cp, f.cp, nvlink) : CollectiveCost{};
  Split gather_kv = split_of(kv, &Split::cp);
  comms += gather_kv;
  Split gather = e.zero >= 3 ? split_of(zero, &Split::zero) : Split{};
  Split reduce = e.zero >= 3 ? split_of(zero_reduce, &Split::zero) : Split{};
  names.tp = tp.transfer * c.tp_allreduces >= tp2.transfer ? tp.tier : tp2.tier;
  names.ep = f.ep.name, names.zero = zero.tier, names.cp = kv.tier;
  // Full recomputation runs the forward's collectives again (sim/program.cpp); sequence
  // parallelism gathers each block's input once more in the backward.
  bool full = e.recompute == Recompute::full;
  Split again = full ? comms : Split{};
  Split regather =
      e.sequence_parallel
          ? split_of(cheapest(e.tp_collective, 1, c.tp_allreduce, e.tp, f.tp, nvlink), &Split::tp) *
                c.tp_allreduces
          : Split{};
  Split tp_backward = tp_comms + (full ? tp_comms : Split{}) + regather;
  if (e.tp_overlap) {
    // Each axis on its own stream (models/layout.hpp: tp_axes_queue): the pass takes at least
    // the longer axis's collectives.
    double again_factor = full ? 2.0 : 1.0;
    Split backward_first = first_axis * again_factor + regather;
    Split backward_second = second_axis * again_factor;
    bool apart = e.tp_2d > 1 && !f.tp_axes_queue;
    Split stream_forward = apart ? longer(first_axis, second_axis) : tp_comms;
    Split stream_backward = apart ? longer(backward_first, backward_second) : tp_backward;
    return {beside(forward, stream_forward) + comms + gather,
            beside(backward, stream_backward) + comms + gather_kv + again + gather + reduce};
  }
  return {forward + tp_comms + comms + gather,
          backward + tp_backward + comms + gather_kv + again + gather + reduce};
}

// Per stage: forward and backward of one layer for one microbatch and the layers of each
// chunk; the embedding (first stage) and LM head (last stage) kernels, which one chunk's
// passes add per microbatch; the gradient reduction after the last backward and the
// optimizer step after it.
struct StageCost {
  Split forward, backward, dp;
  std::vector<double> chunk_layers;
  BlockTime vocabulary;
  Split optimizer;
  TierNames names;
};

// With dp_overlap the gradients leave in buckets during the last backward pass (as
// sim/program.cpp fills them: a bucket closes once it holds dp_bucket bytes, and at the end of
// the pass, with the embedding's and LM head's gradients in the stage's last bucket). Only
// the last bucket must start after the pass, so only it is certain to add to the step: the
// share of this stage's gradients it holds. The stage's last backward pass is its chunk 0's.
double last_bucket_share(const Scenario& s, int stage) {
  const ExecutionSpec& e = s.execution;
  int layers = chunk_layers(s.model, e, stage, 0);
  Bytes per_layer = gradient_word(s.model, e) * layer_costs(s.model, e).params, pending;
  for (int l = 1; l <= layers; ++l) {
    pending += per_layer;
    if (l < layers && pending >= e.dp_bucket) pending = Bytes();
  }
  GradientBytes g = gradient_bytes(s, stage);
  Bytes all = g.dense + g.experts,
        vocabulary = all - per_layer * stage_layer_count(s.model, e, stage);
  return (pending + vocabulary) / all;
}

// The gradient reduction after the last backward: an all-reduce, or with ZeRO-1/2 its two
// halves (reduce-scatter, then the all-gather of the updated parameters); ZeRO-3 has reduced
// layer by layer already. With dp_overlap only the last bucket's reduction is counted, and
// ZeRO's all-gather, which waits for every bucket; with param_gather_overlap that gather runs
// beside the next step's forward passes instead, and a bound leaves it out. The step waits for
// the stage's dearest group.
Split gradient_reduction(const Scenario& s, int stage, const StageFabric& f, TierNames& names) {
  const ExecutionSpec& e = s.execution;
  Split dp;
  if (clips_over_dp(s))
    dp += split_of(dearest(e.dp_collective, 2, kNormBytes, e.weight_replicas(), f.dp,
                           collective_efficiency(s)),
                   &Split::dp);
  if (e.zero >= 3) return dp;
  GradientBytes g = gradient_bytes(s, stage);
  double reduced = e.dp_overlap ? last_bucket_share(s, stage) : 1.0;
  int reduce_phases = e.zero >= 1 ? 1 : 2; // a reduce-scatter, or an all-reduce
  // The parameters gathered back are at the model's precision, the gradients maybe in FP32.
  double parameter_bytes = s.model.bytes_per_word / gradient_word(s.model, e);
  // The simulator skips a reduction with nothing to reduce (an MLP whose every weight is an
  // expert).
  auto add = [&](Bytes bytes, int p, const std::vector<GroupTiers>& groups, Seconds Split::*into,
                 std::string& tier) {
    if (bytes <= Bytes(0)) return;
    const std::string& alg = e.dp_collective;
    const CollectiveEfficiency* nvlink = collective_efficiency(s);
    CollectiveCost reduce = dearest(alg, reduce_phases, bytes * reduced, p, groups, nvlink);
    CollectiveCost gather = e.zero >= 1 && !e.param_gather_overlap
                                ? dearest(alg, 1, bytes * parameter_bytes, p, groups, nvlink)
                                : CollectiveCost{};
    dp += split_of(reduce, into) + split_of(gather, into);
    tier = reduce.transfer >= gather.transfer ? reduce.tier : gather.tier;
  };
  add(g.dense, e.weight_replicas(), f.dp, &Split::dp, names.dp);
  add(g.experts, e.dp / e.ep, f.edp, &Split::edp, names.edp);
  return dp;
}

std::vector<StageCost> stage_costs(const Scenario& s, const LayerCosts& costs,
                                   const FabricSummary& fabric) {
  const ExecutionSpec& e = s.execution;
  std::vector<StageCost> stages;
  for (int j = 0; j < e.pp; ++j) {
    const StageFabric& f = fabric.stages[static_cast<size_t>(j)];
    StageCost stage;
    LayerSplit layer = layer_split(s, costs, f, stage.names);
    for (int c = 0; c < e.chunks(); ++c) stage.chunk_layers.push_back(chunk_layers(s.model, e, j, c));
    stage.forward = layer.forward;
    stage.backward = layer.backward;
    stage.dp = gradient_reduction(s, j, f, stage.names);
    if (j == 0) stage.vocabulary = embedding_time(s);
    if (j == e.pp - 1) {
      BlockTime head = head_time(s);
      stage.vocabulary.forward += head.forward;
      stage.vocabulary.backward += head.backward;
    }
    stage.optimizer = kernels(optimizer_time(s, j));
    stages.push_back(std::move(stage));
  }
  return stages;
}

// The cheapest pipeline send of any stage: the schedule graph takes one time for all of them.
Seconds send_time(const FabricSummary& fabric, Bytes activation) {
  Seconds best(std::numeric_limits<double>::infinity());
  for (const StageFabric& f : fabric.stages)
    best = std::min(best, f.pp_send.alpha + activation / f.pp_send.bandwidth);
  return best;
}

// Under scatter/gather a received activation is all-gathered over TP before it is used: the
// cheapest stage's TP all-gather, counted with the send.
Seconds gather_time(const Scenario& s, const LayerCosts& costs, const FabricSummary& fabric) {
  const ExecutionSpec& e = s.execution;
  if (!e.gathers_pp_receives()) return Seconds(0);
  Seconds best(std::numeric_limits<double>::infinity());
  for (const StageFabric& f : fabric.stages)
    best = std::min(best, cheapest(e.tp_collective, 1, costs.tp_allreduce, e.tp, f.tp,
                                   collective_efficiency(s))
                              .total());
  return best;
}

// The stage that finishes last once its gradient reduction is done, and how its time splits.
struct Critical {
  int stage = 0;
  Split busy;     ///< its own m x v forward and backward passes and its optimizer step
  Seconds bubble; ///< the rest of its pipeline time: waiting for other stages and sends
  Split dp;
  TierNames names;
  [[nodiscard]] Seconds total() const { return busy.total() + bubble + dp.total(); }
};

double layers_of(const StageCost& stage) {
  double layers = 0;
  for (double l : stage.chunk_layers) layers += l;
  return layers;
}

Critical critical_stage(const std::vector<StageCost>& st, const ExecutionSpec& e, Seconds send) {
  int chunks = e.chunks();
  int m = static_cast<int>(e.microbatches());
  PassTimes pass; // by virtual stage: chunk x stages + stage
  for (int c = 0; c < chunks; ++c)
    for (const StageCost& stage : st) {
      double layers = stage.chunk_layers[static_cast<size_t>(c)];
      pass.forward.push_back(stage.forward.total() * layers);
      pass.backward.push_back(stage.backward.total() * layers);
    }
  // The embedding runs in the first virtual stage's passes, the LM head in the last's.
  pass.first = {st.front().vocabulary.forward.total(), st.front().vocabulary.backward.total()};
  pass.last = {st.back().vocabulary.forward.total(), st.back().vocabulary.backward.total()};
  if (st.size() == 1) pass.last = {};
  std::vector<Seconds> finish = pipeline_finish(e.schedule, m, chunks, pass, send, e.group());
  Critical worst;
  for (size_t j = 0; j < st.size(); ++j) {
    Split vocabulary = kernels(st[j].vocabulary.forward) + kernels(st[j].vocabulary.backward);
    Split passes =
        (st[j].forward + st[j].backward) * (static_cast<double>(m) * layers_of(st[j])) +
        vocabulary * m;
    Critical c{static_cast<int>(j), passes + st[j].optimizer,
               std::max(Seconds(0), finish[j] - passes.total()), st[j].dp, st[j].names};
    // A delayed update's reduction runs from the step's start beside the passes: only what
    // outlasts them adds, so the stage takes at least the longer of the two.
    if (e.delayed_update && c.dp.total() > Seconds(0))
      c.dp = c.dp * (std::max(Seconds(0), c.dp.total() - finish[j]) / c.dp.total());
    if (j == 0 || c.total() > worst.total()) worst = c;
  }
  return worst;
}

BoundTerm term(std::string name, Seconds t, std::string why) {
  return {std::move(name), t, std::move(why)};
}

// "EP all-to-alls 1.2 ms over leaf": the groups that moved bytes, largest first.
struct NetworkPart {
  const char* what;
  Seconds time;
  std::string tier;
};

std::vector<NetworkPart> network_parts(const Split& s, const TierNames& n) {
  std::vector<NetworkPart> parts{
      {"TP all-reduces", s.tp, n.tp},          {"EP all-to-alls", s.ep, n.ep},
      {"CP key/value gathers", s.cp, n.cp},    {"ZeRO-3 gathers", s.zero, n.zero},
      {"dense gradients over DP", s.dp, n.dp}, {"expert gradients over EDP", s.edp, n.edp}};
  std::erase_if(parts, [](const NetworkPart& p) { return p.time <= Seconds(0); });
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.time > b.time; });
  return parts;
}

std::string describe(const std::vector<NetworkPart>& parts, const char* none) {
  if (parts.empty()) return none;
  std::string out;
  for (const NetworkPart& p : parts)
    out +=
        (out.empty() ? "" : ", ") + std::string(p.what) + " " + format(p.time) + " over " + p.tier;
  return out + ": bytes / the slowest tier the group crosses";
}

std::string dp_text(const ExecutionSpec& e) {
  if (e.delayed_update) return "beside the passes (delayed update; what outlasts them): ";
  if (e.dp_overlap) return "after the last backward (the last bucket; earlier ones overlap it): ";
  return "after the last backward (not overlapped): ";
}

std::vector<BoundTerm> terms_of(const Critical& c, const ExecutionSpec& e) {
  return {
      term("compute", c.busy.compute,
           "compute-bound kernels of the critical stage: FLOP / their sustained rate"),
      term("hbm", c.busy.hbm,
           "HBM-bound kernels of the critical stage: bytes / HBM bandwidth (weights, activations, "
           "optimizer)"),
      term("latency", c.busy.latency,
           "kernel launches + alpha per collective step (TP, EP, CP, ZeRO-3), m microbatches"),
      term("network", c.busy.network(),
           describe(network_parts(c.busy, c.names), "no collective traffic in the passes")),
      term("pipeline_bubble", c.bubble,
           "the critical stage waiting: other stages' passes and the sends between them"),
      term("dp_allreduce", c.dp.total(),
           dp_text(e) + describe(network_parts(c.dp, c.names), "nothing to reduce")),
  };
}

/// The tier behind a communication term: its largest part's.
std::string tier_behind(const std::string& term_name, const Critical& c) {
  std::vector<NetworkPart> parts;
  if (term_name == "network") parts = network_parts(c.busy, c.names);
  if (term_name == "dp_allreduce") parts = network_parts(c.dp, c.names);
  return parts.empty() ? "" : parts.front().tier;
}

} // namespace

BoundResult closed_form_bound(const Scenario& s, const FabricSummary& f) {
  const ExecutionSpec& e = s.execution;
  if (f.stages.size() != static_cast<size_t>(e.pp))
    throw Error(ExitCode::simulation, "internal: the fabric summary has " +
                                          std::to_string(f.stages.size()) +
                                          " stages for pp = " + std::to_string(e.pp));
  LayerCosts costs = layer_costs(s.model, e);
  Seconds send = e.pp > 1 ? send_time(f, costs.pp_activation) + gather_time(s, costs, f) : Seconds(0);
  Critical worst = critical_stage(stage_costs(s, costs, f), e, send);
  BoundResult r;
  r.terms = terms_of(worst, e);
  r.step_time = worst.total();
  r.limiting =
      std::max_element(r.terms.begin(), r.terms.end(), [](const BoundTerm& a, const BoundTerm& b) {
        return a.time < b.time;
      })->name;
  r.limiting_tier = tier_behind(r.limiting, worst);
  r.critical_stage = worst.stage;
  r.microbatches = static_cast<double>(e.microbatches());
  r.model_flop = model_flop_per_step(s.model, e);
  double peak_per_step = (s.system.gpu.peak * r.step_time).value() * e.gpus();
  r.mfu_upper_bound = r.step_time.value() > 0 ? r.model_flop.value() / peak_per_step : 0.0;
  return r;
}

std::string limiting_text(const BoundResult& b) {
  return b.limiting_tier.empty() ? b.limiting : b.limiting + " over " + b.limiting_tier;
}

std::string format_bound(const BoundResult& b) {
  std::string out;
  char line[256];
  for (const BoundTerm& t : b.terms) {
    std::snprintf(line, sizeof line, "  %-16s %12s  %s\n", t.name.c_str(), format(t.time).c_str(),
                  t.explanation.c_str());
    out += line;
  }
  std::snprintf(
      line, sizeof line,
      "step time >= %s (limiting: %s; critical stage %d, %g microbatches; MFU <= %.1f%%)\n",
      format(b.step_time).c_str(), limiting_text(b).c_str(), b.critical_stage, b.microbatches,
      100.0 * b.mfu_upper_bound);
  return out + line;
}

} // namespace trainsim
