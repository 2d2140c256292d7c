#include "tools/formats/frontier_output.hpp"
#include "tools/formats/text.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "models/error.hpp"
#include "tools/io/output_file.hpp"

namespace trainsim {
namespace {

std::string six_digits(double v) { return formatted("%.6g", v); }

std::string csv_row(const std::string& curve, const FrontierPoint& p) {
  const ParallelPlan& pl = p.plan;
  std::string row = curve + "," + six_digits(p.shape.compute.value()) + "," +
                    (p.feasible ? "true" : "false") + ",";
  // Infeasible levels have no utilization or cluster: empty fields, never 0 or NaN.
  if (p.feasible) {
    row += six_digits(p.times.utilization) + "," + six_digits(pl.gpus()) + "," + six_digits(pl.dp) +
           "," + std::to_string(pl.tp_1d) + "," + std::to_string(pl.tp_2d) + "," +
           std::to_string(pl.pp) + "," + std::to_string(pl.ep) + "," +
           std::to_string(pl.microbatches) + "," + std::to_string(pl.interleave) + "," +
           six_digits(p.times.step.value());
  } else {
    row += ",,,,,,,,,";
  }
  // An infeasible level names what bounds its fastest plan (the reason says more).
  // append(), not "literal" + string: the latter trips GCC 12's false -Wrestrict.
  row.append(",")
      .append(six_digits(p.step_budget.value()))
      .append(",")
      .append(p.times.binding)
      .append(",");
  row += std::to_string(p.shape.layers) + "," + six_digits(p.shape.layer.d_model) + "," +
         six_digits(p.shape.total_params) + "," + six_digits(p.shape.batch_tokens) + "," +
         six_digits(p.shape.steps) + "," + csv_field(p.reason);
  return row + "\n";
}

nlohmann::json optional_flop(const std::optional<Flop>& f) {
  return f ? nlohmann::json(f->value()) : nlohmann::json();
}

nlohmann::json plan_json(const ParallelPlan& p) {
  return {{"gpus", p.gpus()},
          {"dp", p.dp},
          {"tp_1d", p.tp_1d},
          {"tp_2d", p.tp_2d},
          {"pp", p.pp},
          {"ep", p.ep},
          {"microbatches", p.microbatches},
          {"interleave", p.interleave}};
}

nlohmann::json times_json(const PlanTimes& t) {
  return {{"compute_s", t.compute.value()},   {"hbm_s", t.hbm.value()},
          {"nvlink_s", t.nvlink.value()},     {"network_s", t.network.value()},
          {"latency_s", t.latency.value()},   {"stage_s", t.stage.value()},
          {"pipeline_s", t.pipeline.value()}, {"dp_s", t.dp.value()},
          {"step_s", t.step.value()},         {"tokens_per_microbatch", t.tokens_per_microbatch},
          {"memory_bytes", t.memory.value()}};
}

nlohmann::json shape_json(const ModelShape& s) {
  return {{"active_params", s.active_params},
          {"total_params", s.total_params},
          {"layers", s.layers},
          {"d_model", s.layer.d_model},
          {"d_ff", s.layer.d_ff},
          {"experts", s.layer.experts},
          {"top_k", s.layer.top_k},
          {"tokens", s.tokens},
          {"batch_tokens", s.batch_tokens},
          {"steps", s.steps}};
}

// An infeasible level keeps the fastest plan it tried, under "fastest_plan", so the reason
// can be checked (none when no plan fits at all); its utilization is null.
nlohmann::json point_json(const FrontierPoint& p) {
  nlohmann::json j = {{"training_flop", p.shape.compute.value()},
                      {"feasible", p.feasible},
                      {"step_budget_s", p.step_budget.value()},
                      {"shape", shape_json(p.shape)}};
  j["utilization"] = p.feasible ? nlohmann::json(p.times.utilization) : nlohmann::json();
  j["binding"] = p.feasible ? nlohmann::json(p.times.binding) : nlohmann::json();
  bool tried = p.feasible || p.times.step.value() > 0; // none fits: no plan to show
  if (tried) j[p.feasible ? "plan" : "fastest_plan"] = plan_json(p.plan);
  if (tried) j["times"] = times_json(p.times);
  if (!p.feasible) j["reason"] = p.reason;
  return j;
}

nlohmann::json curve_json(const FrontierCurve& c) {
  nlohmann::json points = nlohmann::json::array();
  for (const FrontierPoint& p : c.points) points.push_back(point_json(p));
  return {{"name", c.name},
          {"max_utilization", c.max_utilization},
          {"utilization_knee_flop", optional_flop(c.utilization_knee)},
          {"latency_wall_flop", optional_flop(c.latency_wall)},
          {"points", points}};
}

nlohmann::json options_json(const FrontierOptions& o, const FrontierHardware& hw) {
  return {{"gpu", o.gpu},
          {"duration_s", o.duration.value()},
          {"tokens_per_param", o.tokens_per_param},
          {"aspect_ratio", o.aspect_ratio},
          {"ff_ratio", o.ff_ratio},
          {"batch_tokens_at_1e25", o.batch_tokens_at_1e25},
          {"batch_exponent", o.batch_exponent},
          {"experts", o.experts},
          {"top_k", o.top_k},
          {"bandwidth_scale", o.bandwidth_scale},
          {"latency_scale", o.latency_scale},
          {"collective", to_string(o.collective)},
          {"max_interleave", o.max_interleave},
          {"max_tp_2d", o.max_tp_2d},
          {"knee_fraction", o.knee_fraction},
          {"hardware",
           {{"peak_flop_per_s", hw.gpu.peak.value()},
            {"efficiency", hw.gpu.matmul_efficiency},
            {"hbm_bandwidth_bytes_per_s", hw.gpu.hbm_bandwidth.value()},
            {"hbm_capacity_bytes", hw.gpu.hbm_capacity.value()},
            {"kernel_latency_s", hw.gpu.kernel_latency.value()},
            {"nvlink_domain", hw.fabric.domain},
            {"nvlink_bandwidth_bytes_per_s", hw.fabric.nvlink.bandwidth.value()},
            {"network_bandwidth_bytes_per_s", hw.fabric.network.bandwidth.value()},
            {"nvlink_latency_s", hw.fabric.nvlink.alpha.value()},
            {"network_latency_s", hw.fabric.network.alpha.value()}}}};
}

} // namespace

std::string frontier_csv(const FrontierResult& r) {
  std::string csv =
      "curve,training_flop,feasible,utilization,gpus,dp,tp_1d,tp_2d,pp,ep,microbatches,interleave,"
      "step_time_s,step_budget_s,binding,layers,d_model,total_params,batch_tokens,steps,reason\n";
  for (const FrontierCurve& c : r.curves)
    for (const FrontierPoint& p : c.points) csv += csv_row(c.name, p);
  return csv;
}

nlohmann::json frontier_json(const FrontierResult& r) {
  nlohmann::json curves = nlohmann::json::array();
  for (const FrontierCurve& c : r.curves) curves.push_back(curve_json(c));
  // The headline numbers are the dense curve's; every curve carries its own.
  const FrontierCurve& dense = r.curves.front();
  return {{"utilization_knee_flop", optional_flop(dense.utilization_knee)},
          {"latency_wall_flop", optional_flop(dense.latency_wall)},
          {"options", options_json(r.options, r.hardware)},
          {"curves", curves}};
}

void write_frontier(const FrontierResult& r, const std::string& out_dir) {
  std::filesystem::path dir(out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(ExitCode::io, "cannot create " + out_dir + ": " + ec.message());
  write_text_file((dir / "frontier.csv").string(), frontier_csv(r), "--out");
  write_text_file((dir / "frontier.json").string(), frontier_json(r).dump(2) + "\n", "--out");
  write_text_file((dir / "frontier.svg").string(), frontier_svg(r), "--out");
}

nlohmann::json bound_json(const BoundResult& b) {
  nlohmann::json terms = nlohmann::json::array();
  for (const BoundTerm& t : b.terms)
    terms.push_back(
        {{"name", t.name}, {"seconds", t.time.value()}, {"explanation", t.explanation}});
  return {{"step_time_s", b.step_time.value()},
          {"limiting", b.limiting},
          {"critical_stage", b.critical_stage},
          {"microbatches", b.microbatches},
          {"model_flop", b.model_flop.value()},
          {"mfu_upper_bound", b.mfu_upper_bound},
          {"terms", terms}};
}

} // namespace trainsim
