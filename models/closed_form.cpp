#include "models/closed_form.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "models/closed_form_stage.hpp"
#include "models/collective_cost.hpp"
#include "models/error.hpp"
#include "models/pipeline_path.hpp"
#include "models/step_compute.hpp"
#include "models/workload.hpp"

namespace trainsim {
namespace {

using bound::price_stage;
using bound::Split;
using bound::StagePrice;
using bound::TierNames;

std::vector<StagePrice> stage_prices(const Scenario& s, const FabricSummary& fabric) {
  std::vector<StagePrice> stages;
  for (int j = 0; j < s.execution.pp; ++j)
    stages.push_back(price_stage(s, j, fabric.stages[static_cast<size_t>(j)]));
  return stages;
}

// The schedule graph takes one time for every pipeline transfer: the cheapest stage's
// arrival and the cheapest stage's completion of it.
Seconds send_time(const std::vector<StagePrice>& stages) {
  Seconds arrive(std::numeric_limits<double>::infinity()), complete = arrive;
  for (const StagePrice& stage : stages) {
    arrive = std::min(arrive, stage.transfer);
    complete = std::min(complete, stage.receive.total());
  }
  return arrive + complete;
}

// The stage that finishes last once its gradient reduction is done, and how its time splits.
struct Critical {
  int stage = 0;
  Split busy;     ///< its own m x v forward and backward passes and its optimizer step
  Seconds bubble; ///< the rest of its pipeline time: waiting for other stages and sends
  Split dp;
  TierNames names;
  bool beside = false, after = false; ///< whether DP collectives ran beside the passes, after them
  [[nodiscard]] Seconds total() const { return busy.total() + bubble + dp.total(); }
};

Critical critical_stage(const std::vector<StagePrice>& st, const ExecutionSpec& e, Seconds send) {
  int chunks = e.chunks();
  int m = static_cast<int>(e.microbatches());
  PassTimes pass; // by chunk, then stage
  for (int c = 0; c < chunks; ++c)
    for (const StagePrice& stage : st) {
      pass.forward.push_back(stage.forward[static_cast<size_t>(c)].total());
      pass.backward.push_back(stage.backward[static_cast<size_t>(c)].total());
    }
  std::vector<Seconds> finish =
      pipeline_finish(e.schedule, m, chunks, pass, send, e.group(), e.ep_overlap ? 1 : 0);
  Critical worst;
  for (size_t j = 0; j < st.size(); ++j) {
    Split passes;
    for (int c = 0; c < chunks; ++c)
      passes += st[j].forward[static_cast<size_t>(c)] + st[j].backward[static_cast<size_t>(c)];
    // The once-a-step kernels run on the stage's own GPU: its passes take them too, wherever
    // the longest path through the pipeline runs.
    passes = passes * static_cast<double>(m) + st[j].once;
    // What the DP stream started before the passes runs beside them: only what outlasts them
    // adds, so the stage takes at least the longer of the two.
    Split beside = st[j].beside;
    if (beside.total() > Seconds(0))
      beside = beside * (std::max(Seconds(0), beside.total() - finish[j]) / beside.total());
    Critical c{static_cast<int>(j),
               passes + st[j].optimizer,
               std::max(Seconds(0), finish[j] - passes.total()),
               st[j].after + beside,
               st[j].names,
               st[j].beside.total() > Seconds(0),
               st[j].after.total() > Seconds(0)};
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

std::string dp_text(const Critical& c) {
  if (c.beside && c.after) return "beside the passes (what outlasts them) and after them: ";
  if (c.beside) return "beside the passes (started before them; what outlasts them): ";
  return "after the last backward (what starts after the stage's last kernel): ";
}

std::vector<BoundTerm> terms_of(const Critical& c) {
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
           dp_text(c) + describe(network_parts(c.dp, c.names), "nothing to reduce")),
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
  std::vector<StagePrice> stages = stage_prices(s, f);
  Critical worst = critical_stage(stages, e, e.pp > 1 ? send_time(stages) : Seconds(0));
  BoundResult r;
  r.terms = terms_of(worst);
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
