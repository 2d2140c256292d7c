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
       "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters Using "
       "Megatron-LM, "
       "SC'21, Table 1 (1T GPT, 3072 A100, 163 TFLOP/s per GPU = 52% of peak)",
       0.52, 4.0 / 3.0,
       "published figure counts the recomputed forward, so predicted model-FLOP MFU x 4/3 is "
       "compared; embedding, "
       "logits and optimizer step not simulated"},
      {"llama3-405b-8192-h100.yaml",
       "Llama Team, Meta, The Llama 3 Herd of Models, 2024, Table 4 (405B, 8192 H100, TP8 PP16 "
       "DP64, 430 TFLOP/s, "
       "BF16 MFU 43%)",
       0.43, 1.0,
       "model FLOP, as published; our 1F1B bubble is (pp-1)/(m+pp-1) = 15/47 of the pipeline: "
       "Meta's interleaved "
       "schedule shrinks it, but our loader needs pp x chunks to divide the 126 layers, and 16 "
       "does not",
       // The cheapest of the three to simulate, so the quick subset's: trainsim run --no-link-stats
       // took 63 s (1.5M activities) on two busy cores, against 76 s for the 16384-GPU run and 158
       // s (9.3M) for Megatron's.
       true},
      {"llama3-405b-16384-h100.yaml",
       "Llama Team, Meta, The Llama 3 Herd of Models, 2024, Table 4 (405B, 16384 H100, TP8 PP16 "
       "DP128, 400 TFLOP/s, "
       "BF16 MFU 41%)",
       0.41, 1.0,
       "model FLOP, as published; 16 microbatches, so our 1F1B bubble is 15/31 of the pipeline "
       "(interleaving not "
       "possible with 126 layers on 16 stages in our loader)"},
  };
}

std::string plan_text(const ParallelPlan& p) {
  std::string text =
      "dp" + std::to_string(static_cast<long>(p.dp)) + " tp" + std::to_string(p.tp_1d);
  if (p.tp_2d > 1) text.append("x").append(std::to_string(p.tp_2d)); // append(): GCC 12 -Wrestrict
  return text.append(" pp")
      .append(std::to_string(p.pp))
      .append(" m")
      .append(std::to_string(p.microbatches));
}

// "compute 70%, dp_comm 18%, tp_comm 10%": the simulated step's categories over 5% of it.
std::string shares(const StepSummary& s) {
  std::string out;
  for (const auto& [category, time] : s.breakdown) {
    double share = time / s.step_time;
    if (share < 0.05) continue;
    char item[48];
    std::snprintf(item, sizeof item, "%s%s %.0f%%", out.empty() ? "" : ", ", sim::name(category),
                  100 * share);
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
    LoadedScenario loaded =
        load_scenario((std::filesystem::path(o.scenarios_dir) / "validation" / run.file).string());
    loaded.scenario.system.gpu.matmul_efficiency = o.matmul_efficiency; // one value for every run
    // No link statistics: nothing here names a link, and the run is a third faster without.
    validation::Measured m = validation::measure(loaded, sim::Fidelity::fast, false);
    PublishedCheck c;
    c.name = loaded.scenario.model.name + " on " +
             std::to_string(loaded.scenario.execution.gpus()) + " GPUs";
    c.source = run.source;
    c.assumptions =
        run.accounting_note + "; scenarios/validation/" + run.file + " states what we assumed";
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
  FrontierHardware hw = resolve_hardware(options);
  std::vector<FrontierCheck> out;
  for (const FrontierPoint& point : dense.points) {
    const ParallelPlan& p = point.plan;
    char what[64];
    std::snprintf(what, sizeof what, "frontier %.3g FLOP (%s)", point.shape.compute.value(),
                  plan_text(p).c_str());
    std::string obstacle = replay_obstacle(point);
    if (obstacle.empty() && p.gpus() > 16384) obstacle = "over 16384 GPUs";
    if (obstacle.empty() && p.interleave > 1) obstacle = "interleaving, not simulated here";
    if (!obstacle.empty()) {
      skipped.push_back(std::string(what) + ": " + obstacle);
      continue;
    }
    std::optional<LoadedScenario> loaded;
    try {
      Scenario replay = frontier_scenario(point, hw);
      replay.file = what;
      loaded = build_scenario(std::move(replay));
    } catch (const Error& e) { // e.g. the plan's memory estimate differs from the loader's
      skipped.push_back(std::string(what) + ": the scenario loader refused it: " + e.what());
      continue;
    }
    validation::Measured m = validation::measure(*loaded);
    out.push_back({point.shape.compute.value(), plan_text(p),
                   static_cast<int>(std::lround(p.gpus())), point.times.utilization, m.summary.mfu,
                   point.times.step.value(), m.result.step_time.value(), point.times.binding,
                   shares(m.summary)});
  }
  return out;
}

} // namespace trainsim
