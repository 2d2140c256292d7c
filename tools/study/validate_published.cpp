// Sections 4 and 5 of docs/validation.md: published runs replayed with one documented matmul
// efficiency, and the frontier's chosen plans replayed by the simulator.
#include <cmath>
#include <filesystem>
#include <optional>

#include "sim/log.hpp"

#include "models/error.hpp"
#include "models/frontier.hpp"
#include "tools/study/validation.hpp"
#include "tools/study/validate_scenarios.hpp"

namespace trainsim {
namespace {

struct Published {
  std::string file, source;
  double mfu = 0;
  /// Published FLOP per model FLOP: Megatron counts the recomputed forward pass (4 passes
  /// instead of 3), so its "52% of peak" is 4/3 of model-FLOP utilization.
  double accounting = 1.0;
  std::string accounting_note;
  bool quick = false; ///< replayed by validate --quick too
};

std::vector<Published> published_runs() {
  return {
      {"megatron-1t-3072-a100.yaml",
       "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM, "
       "SC'21, Table 1 (1T GPT, 3072 A100, 163 TFLOP/s per GPU = 52% of peak)",
       0.52, 4.0 / 3.0,
       "published figure counts the recomputed forward, so predicted model-FLOP MFU x 4/3 is compared; embedding, "
       "logits and optimizer step not simulated"},
      {"llama3-405b-8192-h100.yaml",
       "Llama Team, Meta, The Llama 3 Herd of Models, 2024, Table 4 (405B, 8192 H100, TP8 PP16 DP64, 430 TFLOP/s, "
       "BF16 MFU 43%)",
       0.43, 1.0,
       "model FLOP, as published; our 1F1B bubble is (pp-1)/(m+pp-1) = 15/47 of the pipeline: Meta's interleaved "
       "schedule shrinks it, but our loader needs pp x chunks to divide the 126 layers, and 16 does not",
       // The cheapest of the three to simulate, so the quick subset's: trainsim run --no-link-stats took 63 s
       // (1.5M activities) on two busy cores, against 76 s for the 16384-GPU run and 158 s (9.3M) for Megatron's.
       true},
      {"llama3-405b-16384-h100.yaml",
       "Llama Team, Meta, The Llama 3 Herd of Models, 2024, Table 4 (405B, 16384 H100, TP8 PP16 DP128, 400 TFLOP/s, "
       "BF16 MFU 41%)",
       0.41, 1.0,
       "model FLOP, as published; 16 microbatches, so our 1F1B bubble is 15/31 of the pipeline (interleaving not "
       "possible with 126 layers on 16 stages in our loader)"},
  };
}

std::string plan_text(const ParallelPlan& p) {
  return "dp" + std::to_string(static_cast<long>(p.dp)) + " tp" + std::to_string(p.tp_1d) +
         (p.tp_2d > 1 ? "x" + std::to_string(p.tp_2d) : "") + " pp" + std::to_string(p.pp) + " m" +
         std::to_string(p.microbatches);
}

// The paper's MLP-only model with the plan's split, on H100 nodes on a fat-tree (the
// frontier's hardware: NVLink inside a node, 400 Gb/s per GPU across).
validation::ScenarioSpec frontier_scenario(const FrontierPoint& point) {
  const ModelShape& m = point.shape;
  const ParallelPlan& p = point.plan;
  long dp = std::lround(p.dp), gpus = std::lround(p.gpus());
  long tokens = std::lround(point.times.tokens_per_microbatch);
  validation::ScenarioSpec s;
  s.description = "frontier point";
  s.model = "kind: mlp\n  layers: " + std::to_string(m.layers) + "\n  d_model: " + std::to_string(std::lround(m.layer.d_model)) +
            "\n  d_ff: " + std::to_string(std::lround(m.layer.d_ff)) + "\n  seq_len: " + std::to_string(tokens) + "\n";
  // As close to the closed form's assumptions as the simulator goes: TP on NVLink (8-GPU
  // nodes when a TP group fits in one evenly, else nodes of one TP group, e.g. 6), every GPU
  // its own uncontended NIC (rail-optimized: DP and PP rings stay on their rail), and the DP
  // all-reduce overlapped with the backward pass (here: the last microbatch's).
  long gpn = 8 % p.tp_1d == 0 && gpus % 8 == 0 ? 8 : p.tp_1d;
  s.topology = "    generator: rail-optimized\n    nodes: " + std::to_string(gpus / gpn) + "\n    gpus_per_node: " +
               std::to_string(gpn) + "\n";
  s.execution = "  dp: " + std::to_string(dp) + "\n  tp: " + std::to_string(p.tp_1d) + "\n  pp: " + std::to_string(p.pp) +
                "\n  global_batch: " + std::to_string(dp * p.microbatches) + "\n  zero: 1\n  dp_overlap: true\n";
  return s;
}

// "compute 70%, dp_comm 18%, tp_comm 10%": the simulated step's categories over 5% of it.
std::string shares(const StepSummary& s) {
  std::string out;
  for (const auto& [category, time] : s.breakdown) {
    double share = time / s.step_time;
    if (share < 0.05) continue;
    char item[48];
    std::snprintf(item, sizeof item, "%s%s %.0f%%", out.empty() ? "" : ", ", sim::name(category), 100 * share);
    out += item;
  }
  return out;
}

} // namespace

std::vector<PublishedCheck> published_checks(const ValidateOptions& o) {
  std::vector<PublishedCheck> out;
  for (const Published& run : published_runs()) {
    if (o.quick && !run.quick) continue;
    logger("trainsim.validate")->info("validate: published run {}", run.file);
    LoadedScenario loaded = load_scenario((std::filesystem::path(o.scenarios_dir) / "validation" / run.file).string());
    loaded.scenario.system.gpu.matmul_efficiency = o.matmul_efficiency; // one value for every run
    // No link statistics: nothing here names a link, and the run is a third faster without.
    validation::Measured m = validation::measure(loaded, sim::Fidelity::fast, false);
    PublishedCheck c;
    c.name = loaded.scenario.model.name + " on " + std::to_string(loaded.scenario.execution.gpus()) + " GPUs";
    c.source = run.source;
    c.assumptions = run.accounting_note + "; scenarios/validation/" + run.file + " states what we assumed";
    c.gpus = loaded.scenario.execution.gpus();
    c.published_mfu = run.mfu;
    c.predicted_mfu = m.summary.mfu * run.accounting;
    c.bound_mfu = m.bound.mfu_upper_bound * run.accounting;
    c.step_s = m.result.step_time.value();
    c.bound_s = m.bound.step_time.value();
    out.push_back(c);
  }
  return out;
}

std::vector<FrontierCheck> frontier_checks(bool quick, std::vector<std::string>& skipped) {
  FrontierOptions options;
  options.max_flop = Flop(quick ? 1e24 : 1e26);
  options.max_tp_2d = 1; // the simulator has one TP axis: ask for the best plan it can replay
  FrontierCurve dense = frontier_curve(options, false);
  std::vector<FrontierCheck> out;
  for (const FrontierPoint& point : dense.points) {
    const ParallelPlan& p = point.plan;
    char what[64];
    std::snprintf(what, sizeof what, "frontier %.3g FLOP (%s)", point.shape.compute.value(), plan_text(p).c_str());
    if (!point.feasible || p.gpus() > 16384 || p.tp_2d > 1 || p.interleave > 1) {
      skipped.push_back(std::string(what) + ": " + (!point.feasible ? "infeasible" : p.gpus() > 16384 ? "over 16384 GPUs" : "2-D TP or interleaving, not simulated"));
      continue;
    }
    std::optional<LoadedScenario> loaded;
    try {
      loaded = parse_scenario(frontier_scenario(point).render(), what);
    } catch (const Error& e) { // e.g. the plan's memory estimate differs from the loader's
      skipped.push_back(std::string(what) + ": the scenario loader refused it: " + e.what());
      continue;
    }
    validation::Measured m = validation::measure(*loaded);
    out.push_back({point.shape.compute.value(), plan_text(p), static_cast<int>(std::lround(p.gpus())),
                   point.times.utilization, m.summary.mfu, point.times.step.value(), m.result.step_time.value(),
                   point.times.binding, shares(m.summary)});
  }
  return out;
}

} // namespace trainsim
