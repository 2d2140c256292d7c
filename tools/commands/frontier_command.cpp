#include "tools/commands/frontier_command.hpp"

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "tools/commands/cli_support.hpp"
#include "sim/progress.hpp"
#include "models/error.hpp"
#include "tools/formats/frontier_explain.hpp"
#include "tools/formats/frontier_output.hpp"
#include "tools/formats/text.hpp"
#include "tools/io/output_file.hpp"
#include "tools/io/scenario_writer.hpp"
#include "tools/study/resource_guard.hpp"
#include "tools/study/validation.hpp"
#include "topologies/spec.hpp"

namespace trainsim {
namespace {

template <class Parse>
auto parse_flag(const std::string& flag, const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", flag, text, e.what());
  }
}

std::string flop_or_none(const std::optional<Flop>& f) {
  return f ? formatted("%.2g FLOP", f->value()) : "none in the sweep";
}

// What the file says of where it came from: the compute, the plan and the closed form's
// figures for it, which `trainsim run` can be checked against.
std::string frontier_comment(const FrontierPoint& p, const Scenario& s, const GpuSpec& gpu) {
  const ParallelPlan& plan = p.plan;
  std::string memory = s.system.gpu.hbm_capacity == gpu.hbm_capacity
                           ? ""
                           : "\nHBM raised from " + format(gpu.hbm_capacity) + " to " +
                                 format(s.system.gpu.hbm_capacity) +
                                 ": the delayed update's second gradient buffer, which the "
                                 "paper's memory model does not count.";
  return "A point of `trainsim frontier` (docs/closed-form.md): " +
         formatted("%.3g", p.shape.compute.value()) + " FLOP of training, the plan dp " +
         formatted("%.0f", plan.dp) + " x tp " + std::to_string(plan.tp_1d) +
         (plan.tp_2d > 1 ? " x tp_2d " + std::to_string(plan.tp_2d) : "") + " x pp " +
         std::to_string(plan.pp) + " (ep " + std::to_string(plan.ep) + "), " +
         std::to_string(plan.microbatches) +
         " microbatches.\nThe closed form's step: " + format(p.times.step) +
         ", utilization (the paper's idealized MFU) " + percent(p.times.utilization) +
         ", binding term " + p.times.binding + "." + memory;
}

// How `trainsim run` replays a point's scenario on this machine: as it is, with a flag, or
// not at all (the memory guard would refuse it; `why` is the guard's line).
struct ReplayHere {
  bool fits = true;
  std::string flag; ///< "--bundle-replicas" where every replica's flows would take hours
  std::string why;
};

ReplayHere replay_here(const FrontierPoint& point, const Scenario& s, int gpus_per_node) {
  try {
    if (auto size = topo::topology_size(s.system.topology))
      check_resources(s, *size, Footprint::simulation);
  } catch (const Error& e) {
    if (e.exit_code() == ExitCode::internal) throw;
    if (e.exit_code() == ExitCode::resources)
      return {false, "", "not on this machine: " + std::string(e.what())};
    return {false, "", "its fabric cannot be built: " + std::string(e.what())};
  }
  // validate's rule: a TP block across nodes runs every GPU's flows, which past
  // kReplicaBundlingGpus takes hours unless replica 0 runs for all.
  if (replays_bundled(point.plan, gpus_per_node)) return {true, "--bundle-replicas", ""};
  return {};
}

// Every feasible point `trainsim run` can replay here, as a scenario file named after it (its
// comment and the listing naming the flag it needs); the others are listed with the reason.
void write_scenarios(const FrontierResult& result, const std::string& dir) {
  int written = 0;
  std::string skipped, flagged;
  for (const FrontierCurve& curve : result.curves)
    for (const FrontierPoint& point : curve.points) {
      if (!point.feasible) continue;
      std::string name = curve.name + " " + formatted("%.3g", point.shape.compute.value());
      if (std::string why = replay_obstacle(point); !why.empty()) {
        skipped += "  " + name + ": " + why + "\n";
        continue;
      }
      Scenario s = frontier_scenario(point, result.hardware);
      ReplayHere here = replay_here(point, s, result.hardware.fabric.domain);
      if (!here.fits) {
        skipped += "  " + name + ": " + here.why + "\n";
        continue;
      }
      std::string file = (std::filesystem::path(dir) / (s.model.name + ".yaml")).string();
      std::string comment = frontier_comment(point, s, result.hardware.gpu);
      if (!here.flag.empty()) {
        comment += "\nRun it with `trainsim run " + here.flag +
                   "`: its TP block spans nodes, so "
                   "every GPU runs its own flows, for hours unless replica 0 runs for all.";
        flagged += "  " + name + ": trainsim run " + here.flag + " " + file + "\n";
      }
      write_text_file(file, scenario_yaml(s, comment), "--scenarios");
      ++written;
    }
  std::cout << "wrote " << written << " scenarios to " << dir << "/ (trainsim run replays each)\n";
  if (!flagged.empty()) std::cout << "replay these with --bundle-replicas:\n" << flagged;
  if (!skipped.empty()) std::cout << "not replayable:\n" << skipped;
}

} // namespace

int frontier_command(const FrontierCommandOptions& options) {
  FrontierOptions knobs = options.knobs;
  if (!options.duration.empty())
    knobs.duration = parse_flag("--duration", options.duration, parse_duration);
  if (!options.kernel_latency.empty())
    knobs.kernel_latency = parse_flag("--kernel-latency", options.kernel_latency, parse_seconds);
  if (!options.nvlink_latency.empty())
    knobs.nvlink_latency = parse_flag("--nvlink-latency", options.nvlink_latency, parse_seconds);
  if (!options.network_latency.empty())
    knobs.network_latency = parse_flag("--network-latency", options.network_latency, parse_seconds);
  validate(knobs); // run_frontier checks them too; a bad knob must not leave an empty --out behind
  if (!options.explain.empty()) {
    // A bare number is FLOP ("1.4e30"); anything else goes to parse_flop as typed.
    bool bare = options.explain.find_first_not_of("0123456789.eE+-") == std::string::npos;
    Flop compute = parse_flag("--explain", options.explain, [&](const std::string& text) {
      return parse_flop(bare ? text + "FLOP" : text);
    });
    explain_point(std::cout, frontier_point(compute, knobs, false), resolve_hardware(knobs), knobs);
    return 0;
  }
  prepare_output_dir(options.out_dir, "--out"); // before the few seconds of computing
  if (!options.scenarios.empty()) {
    // The files are named after the points, so a second frontier's would overwrite the first's.
    std::error_code ec;
    if (!options.force && std::filesystem::is_directory(options.scenarios, ec) &&
        !std::filesystem::is_empty(options.scenarios, ec))
      throw Error(ExitCode::io, "--scenarios " + options.scenarios +
                                    ": holds files already, which this would overwrite; name a "
                                    "new directory or pass --force");
    prepare_output_dir(options.scenarios, "--scenarios");
  }
  std::optional<sim::Progress> progress;
  FrontierResult result = run_frontier(knobs, [&](int done, int total) {
    if (!progress)
      progress.emplace("frontier", total, "compute levels searched", sim::Progress::Show::count);
    if (done > 0) progress->add();
  });
  if (progress) progress->finish();
  write_frontier(result, options.out_dir);
  if (!options.scenarios.empty()) write_scenarios(result, options.scenarios);
  for (const FrontierCurve& curve : result.curves)
    std::cout << curve.name << ": utilization knee " << flop_or_none(curve.utilization_knee)
              << ", latency wall " << flop_or_none(curve.latency_wall) << "\n";
  std::cout << "wrote " << options.out_dir << "/frontier.csv, frontier.json, frontier.svg\n";
  return 0;
}

void add_frontier_command(CLI::App& app, cli::Command& command) {
  auto [cmd, f] = cli::add_command<FrontierCommandOptions>(
      app, command, "frontier",
      "the paper's utilization vs training-compute frontier (dense and MoE)", frontier_command);
  auto& k = f.knobs;
  cmd->add_option("-o,--out", f.out_dir, "directory for frontier.csv, frontier.json, frontier.svg")
      ->capture_default_str();
  cmd->add_option("--gpu", k.gpu, "hardware preset: h100, a100, b200")->capture_default_str();
  cmd->add_option("--duration", f.duration,
                  "run duration, e.g. 3months, 90days, 2160h (default 3months)");
  cli::add_number(*cmd, "--batch-coefficient", k.batch_tokens_at_1e25,
                  "critical batch at 1e25 FLOP, tokens")
      ->capture_default_str();
  cli::add_number(*cmd, "--batch-exponent", k.batch_exponent, "critical batch law exponent")
      ->capture_default_str();
  cli::add_number(*cmd, "--aspect-ratio", k.aspect_ratio, "d_model / layers")
      ->capture_default_str();
  cli::add_number(*cmd, "--ff-ratio", k.ff_ratio, "d_ff / d_model")->capture_default_str();
  cli::add_number(*cmd, "--tokens-per-param", k.tokens_per_param, "training tokens per parameter")
      ->capture_default_str();
  cli::add_number(*cmd, "--experts", k.experts, "experts per layer on the MoE curve")
      ->capture_default_str();
  cli::add_number(*cmd, "--top-k", k.top_k, "experts per token on the MoE curve")
      ->capture_default_str();
  cli::add_number(*cmd, "--bandwidth-scale", k.bandwidth_scale,
                  "multiplies NVLink and network bandwidth")
      ->capture_default_str();
  cli::add_number(*cmd, "--latency-scale", k.latency_scale,
                  "multiplies kernel, NVLink and network latency")
      ->capture_default_str();
  cmd->add_option("--kernel-latency", f.kernel_latency,
                  "launch + sync per kernel, e.g. 4us (default: preset)");
  cmd->add_option("--nvlink-latency", f.nvlink_latency,
                  "per collective step inside a node (default 1us)");
  cmd->add_option("--network-latency", f.network_latency,
                  "per collective step across nodes (default 3us)");
  cli::add_choice(
      *cmd, "--collective", k.collective,
      {{"tree", CollectiveLatency::tree}, {"ring", CollectiveLatency::ring}},
      "how collective latency grows with the group: tree (default: log2 p) or ring (p-1)");
  cli::add_number(*cmd, "--efficiency", k.matmul_efficiency,
                  "sustained fraction of peak (default: preset)");
  cli::add_number(*cmd, "--max-tp-2d", k.max_tp_2d,
                  "largest second tensor-parallel axis searched (1: 1-D TP only)")
      ->capture_default_str();
  cli::add_number(*cmd, "--max-interleave", k.max_interleave,
                  "largest interleaved-pipeline chunk count searched")
      ->capture_default_str();
  cli::add_number(*cmd, "--knee-fraction", k.knee_fraction,
                  "knee: utilization >= this x the sustained maximum")
      ->capture_default_str();
  cli::add_number(*cmd, "--points-per-decade", k.points_per_decade, "compute levels per decade")
      ->capture_default_str();
  cmd->add_option("--scenarios", f.scenarios,
                  "also write every feasible point trainsim run can replay as DIR/<name>.yaml "
                  "(DIR must be new or empty, unless --force)");
  cmd->add_flag("--force", f.force, "overwrite the files of a --scenarios directory");
  cmd->add_option("--explain", f.explain,
                  "explain one dense point instead, e.g. 1.4e30: its plan, the terms of its step "
                  "and one layer's serial path against the per-layer budget");
}

} // namespace trainsim
