#include "tools/frontier_output.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "models/error.hpp"
#include "tools/output_file.hpp"
#include "tools/svg.hpp"

namespace trainsim {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// CSV fields are quoted only when they hold a comma or a quote (the reasons can).
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_row(const std::string& curve, const FrontierPoint& p) {
  const ParallelPlan& pl = p.plan;
  std::string row = curve + "," + num(p.shape.compute.value()) + "," + (p.feasible ? "true" : "false") + ",";
  // Infeasible levels have no utilization or cluster: empty fields, never 0 or NaN.
  if (p.feasible) {
    row += num(p.times.utilization) + "," + num(pl.gpus()) + "," + num(pl.dp) + "," + std::to_string(pl.tp_1d) + "," +
           std::to_string(pl.tp_2d) + "," + std::to_string(pl.pp) + "," + std::to_string(pl.ep) + "," +
           std::to_string(pl.microbatches) + "," + std::to_string(pl.interleave) + "," + num(p.times.step.value());
  } else {
    row += ",,,,,,,,,";
  }
  // An infeasible level names what bounds its fastest plan (the reason says more).
  // append(), not "literal" + string: the latter trips GCC 12's false -Wrestrict.
  row.append(",").append(num(p.step_budget.value())).append(",").append(p.times.binding).append(",");
  row += std::to_string(p.shape.layers) + "," + num(p.shape.d_model) + "," + num(p.shape.total_params) + "," +
         num(p.shape.batch_tokens) + "," + num(p.shape.steps) + "," + csv_field(p.reason);
  return row + "\n";
}

nlohmann::json optional_flop(const std::optional<Flop>& f) { return f ? nlohmann::json(f->value()) : nlohmann::json(); }

nlohmann::json plan_json(const ParallelPlan& p) {
  return {{"gpus", p.gpus()}, {"dp", p.dp}, {"tp_1d", p.tp_1d}, {"tp_2d", p.tp_2d}, {"pp", p.pp},
          {"ep", p.ep},       {"microbatches", p.microbatches}, {"interleave", p.interleave}};
}

nlohmann::json times_json(const PlanTimes& t) {
  return {{"compute_s", t.compute.value()}, {"hbm_s", t.hbm.value()},         {"nvlink_s", t.nvlink.value()},
          {"network_s", t.network.value()}, {"latency_s", t.latency.value()}, {"stage_s", t.stage.value()},
          {"pipeline_s", t.pipeline.value()}, {"dp_s", t.dp.value()},         {"step_s", t.step.value()},
          {"tokens_per_microbatch", t.tokens_per_microbatch}, {"memory_bytes", t.memory.value()}};
}

nlohmann::json shape_json(const ModelShape& s) {
  return {{"active_params", s.active_params}, {"total_params", s.total_params}, {"layers", s.layers},
          {"d_model", s.d_model}, {"d_ff", s.d_ff}, {"experts", s.experts}, {"top_k", s.top_k},
          {"tokens", s.tokens}, {"batch_tokens", s.batch_tokens}, {"steps", s.steps}};
}

// An infeasible level keeps the fastest plan it tried, under "fastest_plan", so the reason
// can be checked (none when no plan fits at all); its utilization is null.
nlohmann::json point_json(const FrontierPoint& p) {
  nlohmann::json j = {{"training_flop", p.shape.compute.value()}, {"feasible", p.feasible},
                      {"step_budget_s", p.step_budget.value()},   {"shape", shape_json(p.shape)}};
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
  return {{"name", c.name}, {"max_utilization", c.max_utilization},
          {"utilization_knee_flop", optional_flop(c.utilization_knee)},
          {"latency_wall_flop", optional_flop(c.latency_wall)}, {"points", points}};
}

nlohmann::json options_json(const FrontierOptions& o, const Hardware& hw) {
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
           {{"peak_flop_per_s", hw.peak.value()},
            {"efficiency", hw.efficiency},
            {"hbm_bandwidth_bytes_per_s", hw.hbm_bandwidth.value()},
            {"hbm_capacity_bytes", hw.hbm_capacity.value()},
            {"kernel_latency_s", hw.kernel_latency.value()},
            {"nvlink_domain", hw.nvlink_domain},
            {"nvlink_bandwidth_bytes_per_s", hw.nvlink_bandwidth.value()},
            {"network_bandwidth_bytes_per_s", hw.network_bandwidth.value()},
            {"nvlink_latency_s", hw.nvlink_latency.value()},
            {"network_latency_s", hw.network_latency.value()}}}};
}

// --- SVG: utilization vs training FLOP, log x. ----------------------------------------------
struct Frame {
  double left = 70, right = 780, top = 40, bottom = 440; // plot area in pixels
  double log_min = 24, log_max = 32;
  [[nodiscard]] double x(double flop) const {
    return left + (std::log10(flop) - log_min) / (log_max - log_min) * (right - left);
  }
  [[nodiscard]] double y(double utilization) const { return bottom - utilization * (bottom - top); }
};

using svg::line;
using svg::text;

std::string axes(const Frame& f) {
  std::string doc = line(f.left, f.bottom, f.right, f.bottom, "stroke=\"black\"");
  doc += line(f.left, f.top, f.left, f.bottom, "stroke=\"black\"");
  for (int e = static_cast<int>(std::ceil(f.log_min)); e <= static_cast<int>(std::floor(f.log_max)); ++e) {
    double x = f.x(std::pow(10.0, e));
    doc += line(x, f.bottom, x, f.bottom + 5, "stroke=\"black\"");
    doc += text(x, f.bottom + 20, "1e" + std::to_string(e), "text-anchor=\"middle\" font-size=\"12\"");
  }
  for (int i = 0; i <= 5; ++i) {
    double u = 0.2 * i;
    doc += line(f.left - 5, f.y(u), f.left, f.y(u), "stroke=\"black\"");
    doc += text(f.left - 8, f.y(u) + 4, num(u), "text-anchor=\"end\" font-size=\"12\"");
  }
  doc += text((f.left + f.right) / 2, f.bottom + 40, "training compute (FLOP)", "text-anchor=\"middle\" font-size=\"13\"");
  return doc + text(18, (f.top + f.bottom) / 2, "utilization (MFU)",
                    "text-anchor=\"middle\" font-size=\"13\" transform=\"rotate(-90 18 " + svg::num((f.top + f.bottom) / 2) + ")\"");
}

std::string curve_svg(const Frame& f, const FrontierCurve& c, const std::string& color, double knee_fraction, int row) {
  std::string points;
  for (const FrontierPoint& p : c.points)
    if (p.feasible) points += svg::num(f.x(p.shape.compute.value())) + "," + svg::num(f.y(p.times.utilization)) + " ";
  std::string doc = "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"2\" points=\"" + points + "\"/>\n";
  double legend_y = f.top + 14 + 16 * row; // legend, top right: one swatch per curve
  doc += line(f.right - 110, legend_y - 4, f.right - 85, legend_y - 4, "stroke=\"" + color + "\" stroke-width=\"2\"");
  doc += text(f.right - 80, legend_y, c.name, "font-size=\"12\"");
  double threshold = knee_fraction * c.max_utilization;
  doc += line(f.left, f.y(threshold), f.right, f.y(threshold), "stroke=\"gray\" stroke-dasharray=\"2,4\"");
  std::string dash = "stroke=\"" + color + "\" stroke-dasharray=\"6,4\"";
  if (c.utilization_knee) {
    double x = f.x(c.utilization_knee->value());
    doc += line(x, f.top, x, f.bottom, dash);
    doc += text(x + 4, f.top + 14 + 16 * row, c.name + " knee " + num(c.utilization_knee->value()), "font-size=\"12\" fill=\"" + color + "\"");
  }
  if (c.latency_wall) {
    double x = f.x(c.latency_wall->value());
    doc += line(x, f.top, x, f.bottom, "stroke=\"" + color + "\" stroke-width=\"3\"");
    doc += text(x + 4, f.top + 60 + 16 * row, c.name + " wall " + num(c.latency_wall->value()), "font-size=\"12\" fill=\"" + color + "\"");
  }
  return doc;
}


} // namespace

std::string frontier_csv(const FrontierResult& r) {
  std::string csv = "curve,training_flop,feasible,utilization,gpus,dp,tp_1d,tp_2d,pp,ep,microbatches,interleave,"
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

std::string frontier_svg(const FrontierResult& r) {
  Frame f;
  f.log_min = std::floor(std::log10(r.options.min_flop.value()));
  f.log_max = std::ceil(std::log10(r.options.max_flop.value()));
  if (f.log_max <= f.log_min) f.log_max = f.log_min + 1;
  std::string doc = svg::open("frontier", 800, 500);
  doc += "<rect width=\"800\" height=\"500\" fill=\"white\"/>\n";
  doc += text(400, 22, "Utilization vs training compute (" + r.options.gpu + ", " + format(r.options.duration) + ")",
              "text-anchor=\"middle\" font-size=\"15\"");
  doc += axes(f);
  const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"};
  for (size_t i = 0; i < r.curves.size(); ++i)
    doc += curve_svg(f, r.curves[i], colors[i % 4], r.options.knee_fraction, static_cast<int>(i));
  return doc + "</svg>\n";
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
  for (const BoundTerm& t : b.terms) terms.push_back({{"name", t.name}, {"seconds", t.time.value()}, {"explanation", t.explanation}});
  return {{"step_time_s", b.step_time.value()}, {"limiting", b.limiting},
          {"critical_stage", b.critical_stage}, {"microbatches", b.microbatches},
          {"model_flop", b.model_flop.value()}, {"mfu_upper_bound", b.mfu_upper_bound},
          {"terms", terms}};
}

} // namespace trainsim
