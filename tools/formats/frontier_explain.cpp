#include "tools/formats/frontier_explain.hpp"

#include <string>

#include "models/pipeline_path.hpp"
#include "tools/formats/text.hpp"

namespace trainsim {
namespace {

std::string g(double v) { return formatted("%.3g", v); }

double slots(const ParallelPlan& p) { return pipeline_slots(p.microbatches, p.pp, p.interleave); }

void shape(std::ostream& out, const FrontierPoint& pt, const FrontierOptions& o) {
  const ModelShape& s = pt.shape;
  out << "frontier point at " << g(s.compute.value()) << " FLOP (dense, " << o.gpu << ", "
      << formatted("%.0f days", o.duration.value() / 86400.0) << ")\n"
      << "  model        N " << g(s.active_params) << " parameters, " << s.layers
      << " layers, d_model " << g(s.layer.d_model) << ", d_ff " << g(s.layer.d_ff) << "\n"
      << "  batch        " << g(s.batch_tokens) << " tokens, " << g(s.steps)
      << " steps: a step may take " << format(pt.step_budget) << "\n";
}

void plan(std::ostream& out, const FrontierPoint& pt) {
  const ParallelPlan& p = pt.plan;
  out << "  plan         dp " << g(p.dp) << " x tp " << p.tp_1d << " x tp_2d " << p.tp_2d
      << " x pp " << p.pp << (p.ep > 1 ? " (ep " + std::to_string(p.ep) + ")" : "") << ", "
      << p.microbatches << " microbatches"
      << (p.interleave > 1 ? " x " + std::to_string(p.interleave) + " chunks" : "") << ": "
      << g(p.gpus()) << " GPUs, "
      << (pt.feasible ? "feasible" : "infeasible (the fastest plan tried): " + pt.reason) << "\n";
}

void terms(std::ostream& out, const FrontierPoint& pt) {
  const PlanTimes& t = pt.times;
  out << "  per microbatch on the busiest stage (the paper's overlap: the largest term binds)\n";
  for (auto [name, time] :
       {std::pair{"compute", t.compute}, std::pair{"hbm", t.hbm}, std::pair{"nvlink", t.nvlink},
        std::pair{"network", t.network}, std::pair{"latency", t.latency}})
    out << "    " << name << std::string(10 - std::string(name).size(), ' ') << format(time)
        << (t.binding == name ? "   <- binding" : "") << "\n";
  out << "  step         " << g(slots(pt.plan)) << " slots (m + (pp - 1) / v) x " << format(t.stage)
      << " = " << format(t.pipeline) << "; DP all-reduce " << format(t.dp)
      << "; the busier tier's bytes of the step, the all-reduce's included, " << format(t.shared)
      << (t.binding == "dp_network" || t.binding == "pipeline_bubble" ||
                  t.binding.starts_with("shared_")
              ? "   <- binding: " + t.binding
              : "")
      << "\n  utilization  " << percent(t.utilization)
      << " (the paper's idealized MFU: the largest term binds; `trainsim run` simulates it)\n";
}

void latency(std::ostream& out, const FrontierPoint& pt, const FrontierHardware& hw) {
  LatencyPath path = latency_path(pt.shape, hw, pt.plan);
  out << "  latency: one layer's serial path, forward and backward\n";
  for (const PathStep& s : path.layer) {
    if (s.count <= 0) continue;
    std::string tier = *s.tier != '\0' ? std::string(" over ") + s.tier : "";
    out << "    " << g(s.count) << " " << s.what << tier << " x " << format(s.each) << " = "
        << format(s.total()) << "\n";
  }
  out << "    t_layer " << format(path.per_layer()) << " x " << g(path.layers)
      << " layers on the stage + sends " << format(path.sends) << " = " << format(path.total())
      << "\n  per-layer budget " << format(per_layer_budget(pt, hw)) << " (the step's "
      << format(pt.step_budget) << " over " << g(slots(pt.plan)) << " slots and " << g(path.layers)
      << " layers)\n";
}

} // namespace

Seconds per_layer_budget(const FrontierPoint& pt, const FrontierHardware& hw) {
  return pt.step_budget / (slots(pt.plan) * latency_path(pt.shape, hw, pt.plan).layers);
}

void explain_point(std::ostream& out, const FrontierPoint& pt, const FrontierHardware& hw,
                   const FrontierOptions& o) {
  shape(out, pt, o);
  plan(out, pt);
  terms(out, pt);
  latency(out, pt, hw);
}

} // namespace trainsim
