#include "models/closed_form.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "models/closed_form_layer.hpp"
#include "models/collective_cost.hpp"
#include "models/error.hpp"
#include "models/pipeline_path.hpp"
#include "models/step_compute.hpp"
#include "models/workload.hpp"

namespace trainsim {
namespace {

using bound::kernels;
using bound::layer_split;
using bound::LayerSplit;
using bound::Split;
using bound::split_of;
using bound::TierNames;

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
// models/step_program.cpp fills them: a bucket closes once it holds dp_bucket bytes, and at the end of
// the pass, with the embedding's and LM head's gradients in the stage's last bucket). Only
// the last bucket must start after the pass, so only it is certain to add to the step: the
// share of this stage's gradients it holds. The stage's last backward pass is its chunk 0's.
double last_bucket_share(const Scenario& s, int stage) {
  const ExecutionSpec& e = s.execution;
  int layers = chunk_layers(s.model, e, stage, 0);
  Bytes per_layer = gradient_word(s.model, e) * layer_costs(s.model, e).params, pending;
  Bytes bucket = dp_bucket_bytes(s.model, e);
  for (int l = 1; l <= layers; ++l) {
    pending += per_layer;
    if (l < layers && pending >= bucket) pending = Bytes();
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
