// Sections 4 and 5 of docs/validation.md: published runs replayed with one documented matmul
// efficiency, and the frontier's chosen plans replayed by the simulator.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <filesystem>
#include <optional>

#include "sim/log.hpp"
#include "sim/progress.hpp"
#include "sim/simulation.hpp"

#include "models/error.hpp"
#include "models/frontier.hpp"
#include "tools/study/run_cost.hpp"
#include "tools/study/validation.hpp"
#include "tools/study/validation_children.hpp"
#include "tools/study/validate_scenarios.hpp"

namespace trainsim {
namespace {

// A run whose configuration and throughput a paper published; what we had to assume is in
// its scenario file. `published` is the figure in the paper's convention; where a paper gives
// only the step time (`published_step_s`), the figure is the utilization that time implies
// with our FLOP count.
struct Published {
  const char* file;
  const char* source;
  const char* convention; ///< "HFU" (Megatron's eq. 3, recomputation counted) or "MFU"
  double published = 0;
  double published_step_s = 0;
  bool quick = false; ///< replayed by validate --quick too
};

constexpr const char* kNarayanan = "Narayanan et al. 2021 (SC'21), Table 1: TFLOP/s per GPU / 312";
constexpr const char* kKorthikanti = "Korthikanti et al. 2022, Table 5";
constexpr const char* kKorthikantiTime =
    "Korthikanti et al. 2022, Table 5: the baseline's step time (MFU with our FLOP count)";
constexpr const char* kLlama = "Llama 3 Herd of Models 2024, Table 4: BF16 MFU";

// Every run is replayed with the same constants: its GPU preset's (docs/compute-model.md).
// The quick subset takes the two cheapest to simulate.
std::vector<Published> published_runs() {
  return {
      {"narayanan2021-1.7b-32.yaml", kNarayanan, "HFU", 137 / 312.0, 0, true},
      {"narayanan2021-3.6b-64.yaml", kNarayanan, "HFU", 138 / 312.0},
      {"narayanan2021-7.5b-128.yaml", kNarayanan, "HFU", 142 / 312.0},
      {"narayanan2021-18.4b-256.yaml", kNarayanan, "HFU", 135 / 312.0},
      {"narayanan2021-39.1b-512.yaml", kNarayanan, "HFU", 138 / 312.0},
      {"narayanan2021-76.1b-1024.yaml", kNarayanan, "HFU", 140 / 312.0},
      {"narayanan2021-145.6b-1536.yaml", kNarayanan, "HFU", 148 / 312.0},
      {"narayanan2021-310.1b-1920.yaml", kNarayanan, "HFU", 155 / 312.0},
      {"narayanan2021-529.6b-2520.yaml", kNarayanan, "HFU", 163 / 312.0},
      {"narayanan2021-1t-3072.yaml", kNarayanan, "HFU", 163 / 312.0},
      {"korthikanti2022-22b-selective.yaml", kKorthikanti, "MFU", 0.415, 0, true},
      {"korthikanti2022-175b-selective.yaml", kKorthikanti, "MFU", 0.514},
      {"korthikanti2022-530b-selective.yaml", kKorthikanti, "MFU", 0.560},
      {"korthikanti2022-1t-selective.yaml", kKorthikanti, "MFU", 0.563},
      {"korthikanti2022-22b-full.yaml", kKorthikantiTime, "MFU", 0, 1.42},
      {"korthikanti2022-175b-full.yaml", kKorthikantiTime, "MFU", 0, 18.13},
      {"korthikanti2022-530b-full.yaml", kKorthikantiTime, "MFU", 0, 49.05},
      {"korthikanti2022-1t-full.yaml", kKorthikantiTime, "MFU", 0, 94.42},
      {"llama3-405b-8192-h100.yaml", kLlama, "MFU", 0.43},
      {"llama3-405b-16384-h100.yaml", kLlama, "MFU", 0.41},
      {"llama3-405b-16384-cp16-h100.yaml", kLlama, "MFU", 0.38},
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

PublishedCheck published_check(const Published& run, const ValidateOptions& o) {
  logger("trainsim.validate")->info("validate: published run {}", run.file);
  LoadedScenario loaded =
      load_scenario((std::filesystem::path(o.scenarios_dir) / "validation" / run.file).string());
  // No link statistics: nothing here names a link, and the run is a third faster without.
  validation::Measured m = validation::measure(loaded, sim::Fidelity::fast, false);
  PublishedCheck c;
  c.name = std::filesystem::path(run.file).stem().string();
  c.source = run.source;
  c.assumptions = "scenarios/validation/" + std::string(run.file);
  c.convention = run.convention;
  c.gpus = loaded.scenario.execution.gpus();
  bool hardware = c.convention == "HFU";
  // Both utilizations share the step time: the bound's ceiling scales with the same FLOP.
  double per_model_flop = hardware ? m.summary.hfu / m.summary.mfu : 1.0;
  c.predicted = m.summary.mfu * per_model_flop;
  c.bound = m.bound.mfu_upper_bound * per_model_flop;
  c.step_s = m.result.step_time.value();
  c.bound_s = m.bound.step_time.value();
  c.published =
      run.published_step_s > 0 ? c.predicted * c.step_s / run.published_step_s : run.published;
  c.breakdown = validation::shares(m.summary);
  return c;
}

} // namespace

PublishedErrors published_errors(const std::vector<PublishedCheck>& runs) {
  return errors_over(
      runs, [](const PublishedCheck&) { return true; },
      [](const PublishedCheck& c) { return c.name; });
}

std::vector<PublishedCheck> published_checks(const ValidateOptions& o) {
  std::vector<Published> runs;
  for (const Published& run : published_runs())
    if (!o.quick || run.quick) runs.push_back(run);
  sim::Progress progress("validate: published runs", static_cast<double>(runs.size()),
                         "runs simulated", sim::Progress::Show::count);
  std::vector<std::function<PublishedCheck()>> tasks;
  for (const Published& run : runs) tasks.push_back([&run, &o] { return published_check(run, o); });
  return validation::side_by_side(tasks, progress);
}

namespace {

// Replays `point` twice (the paper's overlap as far as the simulator runs it, then nothing
// overlapped), or says in `skipped` why not.
FrontierOutcome replay(const FrontierPoint& point, const FrontierHardware& hw) {
  const ParallelPlan& p = point.plan;
  char what[64];
  std::snprintf(what, sizeof what, "frontier %.3g FLOP (%s)", point.shape.compute.value(),
                plan_text(p).c_str());
  std::string obstacle = replay_obstacle(point);
  if (obstacle.empty() && p.interleave > 1) obstacle = "interleaving, not simulated here";
  std::optional<Scenario> replay;
  if (obstacle.empty()) replay = frontier_scenario(point, hw);
  if (replay && sim::rail_bundle(*replay) == 1 && p.gpus() > kUnbundledReplayGpus)
    obstacle = "its TP block spans nodes, so every GPU runs its own flows: too slow here";
  if (!obstacle.empty()) return {{}, std::string(what) + ": " + obstacle};
  // The same point with the paper's overlap as far as the simulator runs it (TP collectives
  // pipelined with their kernels, direct inside a node, the DP reduction beside the whole step by a
  // delayed update: the frontier scenario's settings) and with nothing overlapped; the memory guard
  // refuses a replay this machine cannot hold. One topology for both: the settings change the
  // programs, not the fabric.
  std::optional<LoadedScenario> loaded;
  try {
    replay->file = what;
    loaded = build_scenario(std::move(*replay));
  } catch (const Error& e) { // e.g. the plan's memory estimate differs from the loader's
    if (e.exit_code() == ExitCode::internal) throw; // a bug is never a skipped row
    return {{}, std::string(what) + ": the scenario loader refused it: " + e.what()};
  }
  bool bundle = replays_bundled(p, loaded->topology.gpus_per_node());
  if (bundle) {
    try {
      sim::SimOptions options;
      options.bundle_replicas = true;
      sim::replica_bundle(loaded->scenario, loaded->topology, options);
    } catch (const Error& e) {
      if (e.exit_code() == ExitCode::internal) throw;
      return {{}, std::string(what) + ": too large to replay unbundled, and " + e.what()};
    }
  }
  validation::Measured overlapped = validation::measure(*loaded, sim::Fidelity::fast, true, bundle);
  ExecutionSpec& e = loaded->scenario.execution;
  e.dp_overlap = e.delayed_update = e.tp_overlap = e.param_gather_overlap = false;
  e.launch_overlap = false;
  // Without Transformer Engine's overlap, NCCL's rings run TP's collectives, as all-reduces:
  // sequence parallelism comes with the overlap (frontier_scenario()).
  e.tp_collective = "ring";
  e.sequence_parallel = false;
  validation::Measured serial = validation::measure(*loaded, sim::Fidelity::fast, false, bundle);
  // frontier_scenario() gives the GPU the HBM the delayed update's second gradient buffer needs.
  Bytes hbm = loaded->scenario.system.gpu.hbm_capacity;
  std::string plan = plan_text(p);
  if (hbm != hw.gpu.hbm_capacity) plan += " (HBM " + format(hbm) + ")";
  return {FrontierCheck{point.shape.compute.value(), plan, static_cast<int>(std::lround(p.gpus())),
                        point.times.utilization, overlapped.summary.mfu, point.times.step.value(),
                        overlapped.result.step_time.value(), point.times.binding,
                        validation::shares(overlapped.summary), serial.summary.mfu,
                        serial.result.step_time.value(), validation::blame(overlapped), p.tp_2d > 1,
                        gap_causes(overlapped.summary, point.times, p.microbatches),
                        overlapped.result.replica_bundle},
          ""};
}

// A replay's estimated ops, twice (overlapped, then not); 0 for a point not replayed.
double replay_weight(const FrontierPoint& point, const FrontierHardware& hw) {
  if (!replay_obstacle(point).empty() || point.plan.interleave > 1) return 0;
  Scenario s = frontier_scenario(point, hw);
  int replicas = replays_bundled(point.plan, hw.fabric.domain)
                     ? static_cast<int>(std::lround(point.plan.dp))
                     : 1;
  return 2 * estimate_run_cost(s, false, sim::rail_bundle(s), replicas).actor_ops;
}

} // namespace

bool replays_bundled(const ParallelPlan& plan, int gpus_per_node) {
  return plan.tp_1d * plan.tp_2d > gpus_per_node && plan.gpus() > kReplicaBundlingGpus;
}

std::vector<GapCause> gap_causes(const StepSummary& replay, const PlanTimes& closed,
                                 int microbatches) {
  using sim::Category;
  double m = microbatches;
  double kernels = m * std::max(closed.compute, closed.hbm).value();
  double busy = m * closed.stage.value(); // kernels and the binding term, every microbatch
  double bubble = closed.pipeline.value() - busy;
  double apart = std::max(closed.dp, closed.pipeline).value(); // the step without `shared`
  double dp_excess = apart - closed.pipeline.value();
  double shared_excess = closed.step.value() - apart;
  auto t = [&](Category c) { return replay.time(c).value(); };
  std::vector<GapCause> all{
      {"kernels", t(Category::compute) - kernels},
      {"tp_comm", t(Category::tp_comm)},
      {"ep_comm", t(Category::ep_comm)},
      {"cp_comm", t(Category::cp_comm)},
      {"dp_comm", t(Category::dp_comm) - dp_excess},
      {"pipeline", t(Category::bubble) + t(Category::pp_comm) - bubble},
      {"idle", t(Category::idle)},
      {"closed-form stage beyond kernels", kernels - busy},
      {"closed-form tier shared by pipeline and DP", -shared_excess},
  };
  std::vector<GapCause> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out),
               [](const GapCause& c) { return std::abs(c.seconds) > 1e-9; });
  return out;
}

std::vector<FrontierCheck> frontier_checks(bool quick, bool paper_scale,
                                           std::vector<std::string>& skipped) {
  // The best 1-D plans, then the closed form's own choice (2-D TP from 3e24 on) where it
  // differs, bundled above kReplicaBundlingGpus: the 1e27 plan takes about 30 minutes bundled
  // (docs/performance.md, "Replica bundling").
  Flop last(quick ? 1e24 : paper_scale ? 1e27 : kFrontierReplayFlop);
  FrontierOptions one_d;
  one_d.max_flop = last;
  one_d.max_tp_2d = 1;
  FrontierOptions two_d;
  two_d.max_flop = paper_scale ? last : Flop(kFrontier2dReplayFlop);
  FrontierHardware hw = resolve_hardware(one_d);
  std::vector<FrontierPoint> points = frontier_curve(one_d, false).points;
  if (!quick)
    for (const FrontierPoint& point : frontier_curve(two_d, false).points)
      if (point.plan.tp_2d > 1) points.push_back(point);
  // The replays' costs differ a thousandfold (a few GPUs to 238k): the ETA weighs each by its
  // estimated ops, not as one of so many points.
  std::vector<double> weights;
  std::vector<std::function<FrontierOutcome()>> tasks;
  for (const FrontierPoint& point : points) {
    weights.push_back(replay_weight(point, hw));
    tasks.push_back([&point, &hw] { return replay(point, hw); });
  }
  sim::Progress progress("validate: frontier replays",
                         std::accumulate(weights.begin(), weights.end(), 0.0),
                         "the replays' estimated ops");
  std::vector<FrontierCheck> out;
  for (FrontierOutcome& o : validation::side_by_side(tasks, progress, &weights))
    o.skipped.empty() ? out.push_back(std::move(o.check)) : skipped.push_back(o.skipped);
  return out;
}

} // namespace trainsim
