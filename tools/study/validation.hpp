// The validation suite behind `trainsim validate`: the simulator against the closed form
// (exact cases, the bound on every scenario), the collectives against their alpha-beta
// formulas, published runs against their reported MFU, and the frontier's chosen plans
// replayed. formats/validation_report writes it; docs/validation.md is its output.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/frontier.hpp"
#include "models/scenario.hpp"
#include "tools/formats/report.hpp"
#include "tools/io/scenario_loader.hpp"

namespace trainsim {

struct ValidateOptions {
  std::string out_dir;        ///< validation.md and validation.json go here; empty: a new
                              ///< validation-YYYYmmdd-HHMMSS in the current directory
  bool quick = false;         ///< the CTest subset: small exact cases, ~20 random scenarios,
                              ///< the cheapest published run
  int random_scenarios = 200; ///< random scenarios in the full run (quick: 20)
  unsigned long long seed =
      20261130;              ///< the random scenarios' seed; fixed so reports are reproducible
  std::string scenarios_dir; ///< default: the scenarios folder found at run time
                             ///< (tools/io/data_dir.hpp)
  bool paper_scale = false;  ///< also the paper-scale replays: the frontier past
                             ///< kFrontierReplayFlop, scenario files over kPaperScaleGpus
};

/// The full suite leaves the paper-scale replays to `--paper-scale`: scenario files of more
/// GPUs than this (the 100k and 1M reference steps: 1M alone takes about 14 CPU minutes and
/// 17 GiB) and the frontier past kFrontierReplayFlop (its 2-D plans from 1.78e26 on took
/// 8 to 30 minutes each, docs/performance.md).
inline constexpr int kPaperScaleGpus = 20000;
inline constexpr double kFrontierReplayFlop = 1e26;
/// The 2-D plans stop a point earlier, at 5.62e25 FLOP: the 1e26 2-D plan (16,384 GPUs, tp
/// 8 x 8 across nodes, overlapped) takes about 10 CPU minutes since fast mode scales an
/// overlapped pass's repeated blocks instead of merging the pass (2.9 s before, the same step).
inline constexpr double kFrontier2dReplayFlop = 6e25;

/// One exact case: a scenario where no two flows share a link, so the simulated step and
/// the bound should agree.
struct ExactCase {
  std::string name, parallelism;
  int gpus = 0;
  double simulated_s = 0, bound_s = 0;
  std::string note; ///< when they differ by more than 2%: the phase and the busiest link
  [[nodiscard]] double error() const { return simulated_s / bound_s - 1.0; }
};

/// One scenario checked against the bound (a file of scenarios/ or a random one).
struct BoundCheck {
  std::string name, features;
  int gpus = 0;
  double simulated_s = 0, bound_s = 0;
  std::string blame; ///< when simulated > 1.1 x bound: the busiest link, its tier and the phase
  [[nodiscard]] double ratio() const { return simulated_s / bound_s; }
  [[nodiscard]] bool violates() const { return simulated_s < bound_s * (1.0 - 1e-6); }
};

struct CollectiveCheck {
  std::string algorithm, op, graph, fidelity;
  int ranks = 0;
  double bytes = 0, simulated_s = 0, formula_s = 0;
  double algbw = 0, busbw = 0; ///< NCCL-tests definitions, bytes/s
  bool exact_formula =
      true; ///< false: a textbook approximation, not the algorithm's exact schedule
  [[nodiscard]] double error() const { return simulated_s / formula_s - 1.0; }
};

/// A published run replayed: its utilization as published and as predicted, in the source's
/// convention ("MFU": model FLOP; "HFU": with the recomputed work, Megatron's eq. 3).
struct PublishedCheck {
  std::string name, source, assumptions;
  std::string convention = "MFU";
  int gpus = 0;
  double published = 0, predicted = 0, bound = 0, step_s = 0, bound_s = 0;
  std::string breakdown; ///< the simulated step's categories over 5% of it
  /// Relative error of the prediction: +0.10 is 10% above the published figure.
  [[nodiscard]] double error() const { return predicted / published - 1.0; }
};

/// A row of NVIDIA Megatron-Bridge's published pre-training tables replayed: tokens per second
/// per GPU, as published and as simulated (docs/validation.md, section 4b).
struct BridgeCheck {
  std::string name;     ///< the scenario file's stem
  std::string release;  ///< the NeMo container, "25.11"
  std::string system;   ///< "DGX-B200"
  std::string workload; ///< model and precision, as the table writes them
  int gpus = 0;
  bool dense = false; ///< one of the dense rows the verdict judges (the MoE rows are reported)
  double published = 0, predicted = 0, step_s = 0, bound_s = 0;
  std::string breakdown; ///< the simulated step's categories over 5% of it
  std::string memory;    ///< "": the plan fits the GPU's HBM; else why trainsim finds it does not
  [[nodiscard]] double error() const { return predicted / published - 1.0; }
};

/// One transformer layer's forward + backward against a published measurement of it.
struct LayerCheck {
  std::string variant;
  double published_ms = 0, predicted_ms = 0;
  [[nodiscard]] double error() const { return predicted_ms / published_ms - 1.0; }
};

/// The published-run suite's figures: mean and worst absolute relative error, over `runs` rows.
struct PublishedErrors {
  double mean = 0, worst = 0;
  std::string worst_run;
  int runs = 0;
};
/// Those figures over the `rows` (each with an error()) that `counted` admits; `label` names
/// the worst.
template <class Row, class Counted, class Label>
PublishedErrors errors_over(const std::vector<Row>& rows, Counted counted, Label label) {
  PublishedErrors e;
  for (const Row& r : rows) e.runs += counted(r) ? 1 : 0;
  for (const Row& r : rows) {
    if (!counted(r)) continue;
    double error = std::abs(r.error());
    e.mean += error / e.runs;
    if (error > e.worst) e.worst = error, e.worst_run = label(r);
  }
  return e;
}
PublishedErrors published_errors(const std::vector<PublishedCheck>& runs);
/// The same over the Megatron-Bridge rows, the dense ones (`dense`) or the others.
PublishedErrors bridge_errors(const std::vector<BridgeCheck>& rows, bool dense);

/// One reason a frontier replay's step differs from the closed form's: `seconds` of the
/// difference, negative where the closed form spends time the replay does not.
struct GapCause {
  std::string cause;
  double seconds = 0;
};

/// 2-D replays whose every GPU runs its own flows (the TP block spans nodes with a second axis
/// narrower than the node, so no rail bundling) are the slow ones (docs/performance.md,
/// "Collective streams"); larger ones are left out.
inline constexpr int kUnbundledReplayGpus = 4096;
/// Larger replays whose TP block spans nodes run DP replica 0 for all (`--bundle-replicas`,
/// docs/fast-mode.md, "Replica bundling"): unbundled, the 1.78e26 plan (29,312 GPUs) took
/// 452 CPU s here and 3.16e26's (52,608) 1,156; the 1e27 plan's (174,720) would take about 42
/// hours, 30 minutes bundled.
inline constexpr int kReplicaBundlingGpus = 32768;
/// Whether validate replays `plan` bundled: its TP block spans nodes and it has more than
/// kReplicaBundlingGpus GPUs. A block inside a node is bundled to one flow per node and replays
/// every replica at any size (the 1-D frontier to 1e27, 238,032 GPUs).
bool replays_bundled(const ParallelPlan& plan, int gpus_per_node);

struct FrontierCheck {
  double compute_flop = 0;
  std::string plan;
  int gpus = 0;
  double closed_form_utilization = 0, simulated_mfu = 0, step_closed_s = 0, step_sim_s = 0;
  std::string note;      ///< the closed form's binding term
  std::string breakdown; ///< where the simulated step goes: categories over 5% of it
  /// The same replay with nothing overlapped (dp_overlap off); the fields above have it on.
  double simulated_mfu_serial = 0, step_sim_serial_s = 0;
  std::string blame;  ///< the largest non-compute phase and the busiest link (overlapped replay)
  bool two_d = false; ///< the plan uses 2-D TP (the closed form's own search, not --max-tp-2d 1)
  std::vector<GapCause> gap; ///< the overlapped replay's step minus the closed form's, by cause
  int bundled = 1;           ///< DP replicas that replica 0 ran for (replica bundling); 1: none
};

/// One scenario simulated in both modes, with links shared (as always) and with every link a
/// fat pipe, where no flow slows another: what fast mode's transform moves the step by.
struct FidelityCheck {
  std::string name, features;
  int gpus = 0;
  double fast_s = 0, fine_s = 0;                   ///< links shared
  double fast_unshared_s = 0, fine_unshared_s = 0; ///< every link a fat pipe
  /// The fine run's CPU time (links shared) and estimate_fine_cost's for it: validation.json
  /// only, as machine-dependent measurements do not belong in docs/validation.md.
  double fine_cpu_s = 0, fine_estimate_s = 0;
  [[nodiscard]] double error() const { return fast_s / fine_s - 1.0; }
  [[nodiscard]] double error_unshared() const { return fast_unshared_s / fine_unshared_s - 1.0; }
};
/// Fast mode within this of fine mode on every scenario of the fidelity section, and within
/// kFidelityUnsharedTolerance where no link is shared.
inline constexpr double kFidelityTolerance = 0.03;
inline constexpr double kFidelityUnsharedTolerance = 0.01;
/// The random scenarios whose fine-mode step is estimated at this much CPU time or less
/// (estimate_fine_cost, tools/study/run_cost.hpp) are run in both modes; the others are left
/// out of the section.
inline constexpr double kFidelityFineBudget_s = 5.0;

struct ValidationReport {
  ValidateOptions options;
  std::vector<ExactCase> exact;
  std::vector<BoundCheck> bounds;
  std::vector<std::string> bounds_not_run;       ///< scenario files the memory guard refused, or
                                                 ///< left to --paper-scale, and why
  int random_generated = 0, random_rejected = 0; ///< rejected: parse_scenario refused them
  std::vector<CollectiveCheck> collectives;
  std::vector<PublishedCheck> published;
  std::vector<BridgeCheck> bridge;
  std::vector<LayerCheck> layers;
  std::vector<FrontierCheck> frontier;
  std::vector<FidelityCheck> fidelity;
  std::vector<std::string> skipped; ///< what could not be run, and why
  double wall_s = 0;
  std::vector<std::pair<std::string, double>> section_wall_s; ///< each section's wall time
};

// The sections, each usable on its own (tests/tools/validate_test.cpp).
std::vector<ExactCase> exact_cases(bool quick);
/// Every scenario file of the options' folder (but validation/) and the random scenarios,
/// against the bound; a file this machine cannot hold (the memory guard's refusal) goes to
/// `not_run` with the guard's reason.
std::vector<BoundCheck> bound_checks(const ValidateOptions& options, int& generated, int& rejected,
                                     std::vector<std::string>& not_run);
std::vector<CollectiveCheck> collective_checks(bool quick);
std::vector<PublishedCheck> published_checks(const ValidateOptions& options);
/// Megatron-Bridge's rows, every one, or two with `quick`.
std::vector<BridgeCheck> bridge_checks(const ValidateOptions& options);
std::vector<LayerCheck> layer_checks();
/// The frontier's points replayed: to 1e24 FLOP when `quick`, to kFrontierReplayFlop, or with
/// `paper_scale` to 1e27; the points not replayed go to `skipped` with the reason.
std::vector<FrontierCheck> frontier_checks(bool quick, bool paper_scale,
                                           std::vector<std::string>& skipped);
/// Fast against fine mode on the random scenarios fine mode can afford (and, in the full run,
/// issue 41's Mixtral-like job), each also with every link a fat pipe; the runs side by side.
std::vector<FidelityCheck> fidelity_checks(const ValidateOptions& options);

/// A replay's step minus the closed form's, cause by cause; the causes add up to the
/// difference. The closed form's step is its kernels (m x max(compute, hbm), m microbatches),
/// what a binding network or latency term adds to every microbatch, its bubble, and what its
/// DP all-reduce outlasts the pipeline by; the replay's is its categories (sim/category.hpp).
/// So: "kernels" (the replay's compute beyond the closed form's kernels: their launches, which
/// the closed form counts only as a bound of their own; negative where the mean GPU holds
/// fewer layers than the closed form's most loaded stage), every communication category the
/// replay exposed (dp_comm less the closed form's DP excess), "pipeline" (bubble and pipeline
/// transfers beyond the closed form's bubble), "idle", "closed-form stage beyond kernels"
/// (negative) and "closed-form tier shared by pipeline and DP" (negative: what the busier
/// tier's bytes of the whole step outlast the pipeline and the DP all-reduce by). Causes
/// under 1e-9 s are left out.
std::vector<GapCause> gap_causes(const StepSummary& replay, const PlanTimes& closed,
                                 int microbatches);

/// Random scenario `index` of the stream seeded with `seed`, named "random/INDEX"; deterministic
/// across platforms (std::mt19937_64 and our own mapping to ranges). It may break the rules:
/// the generator proposes, build_scenario() decides.
Scenario random_scenario(unsigned long long seed, int index);

/// A random scenario the loader accepted, with its index in the stream.
struct RandomScenario {
  int index = 0;
  LoadedScenario loaded;
};
/// The first `wanted` random scenarios the loader accepts, of at most 20 x `wanted` drawn;
/// `generated` and `rejected` count the draws.
std::vector<RandomScenario> accepted_random_scenarios(unsigned long long seed, int wanted,
                                                      int& generated, int& rejected);

ValidationReport run_validation(const ValidateOptions& options);

} // namespace trainsim
