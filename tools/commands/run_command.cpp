#include "tools/commands/run_command.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <spdlog/spdlog.h>

#include <memory>

#include <CLI/CLI.hpp>

#include "tools/commands/cli_support.hpp"
#include "models/error.hpp"
#include "models/closed_form.hpp"
#include "tools/study/evaluate.hpp"
#include "sim/log.hpp"
#include "tools/io/data_dir.hpp"
#include "tools/io/output_file.hpp"
#include "tools/formats/report.hpp"
#include "tools/study/resource_guard.hpp"
#include "tools/study/run_cost.hpp"
#include "tools/formats/run_outputs.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tools/formats/trace_writer.hpp"

namespace trainsim {
namespace {

// Output files are opened before the simulation, so an unwritable path fails at once.
struct OutputFiles {
  std::string trace, links;
  std::ofstream trace_out, links_out;
};

OutputFiles open_outputs(const RunOptions& o) {
  OutputFiles f;
  auto in_out_dir = [&](const char* name) {
    return (std::filesystem::path(o.out_dir) / name).string();
  };
  if (!o.out_dir.empty()) prepare_output_dir(o.out_dir, "--out"); // result.json is written last
  f.trace = !o.trace_file.empty() ? o.trace_file
            : o.out_dir.empty()   ? ""
                                  : in_out_dir("trace.json");
  f.links = !o.links_csv.empty()                 ? o.links_csv
            : o.out_dir.empty() || !o.link_stats ? ""
                                                 : in_out_dir("links.csv");
  // An error names the option the user typed: --trace or --links, or --out for the files it
  // implies.
  if (!f.trace.empty())
    f.trace_out = open_output(f.trace, o.trace_file.empty() ? "--out" : "--trace");
  if (!f.links.empty())
    f.links_out = open_output(f.links, o.links_csv.empty() ? "--out" : "--links");
  return f;
}

// The default selection stays under ~100 MB; an explicit one is the user's call, with a warning.
std::vector<int> traced_ranks(const RunOptions& o, const LoadedScenario& loaded, bool tracing) {
  bool fine = o.fidelity == sim::Fidelity::fine;
  if (o.trace_ranks.empty())
    return tracing ? default_trace_ranks(loaded.scenario, fine) : std::vector<int>{};
  std::vector<int> ranks = parse_rank_selection(o.trace_ranks, loaded.scenario, loaded.topology);
  double bytes =
      estimated_trace_bytes_per_rank(loaded.scenario, fine) * static_cast<double>(ranks.size());
  if (bytes > 100e6)
    logger("trainsim.trace")
        ->warn("--trace-ranks {}: up to {:.0f} MB of trace", o.trace_ranks, bytes / 1e6);
  return tracing ? ranks : std::vector<int>{};
}

void write_outputs(OutputFiles& f, const LoadedScenario& loaded, const sim::SimResult& result) {
  if (f.trace_out.is_open()) {
    write_trace(f.trace_out, loaded.scenario, result);
    close_output(f.trace_out, f.trace);
  }
  if (f.links_out.is_open()) {
    write_links_csv(f.links_out, loaded.topology, result.channel_bytes, result.step_time);
    close_output(f.links_out, f.links);
  }
}

} // namespace

std::string default_scenario_path() {
  return (find_scenarios_dir("or give a scenario file") / "default.yaml").string();
}

int run_command(const RunOptions& options) {
  LoadOptions load;
  load.force_memory = options.force_memory;
  LoadedScenario loaded =
      load_scenario(options.scenario.empty() ? default_scenario_path() : options.scenario, load);
  const Scenario& s = loaded.scenario;
  logger("trainsim.run")
      ->info("simulating {} GPUs, {} links", loaded.topology.gpu_count(),
             loaded.topology.link_count());
  GuardParams guard; // refuse now rather than be OOM-killed minutes later
  guard.costs.rail_bundling = options.fidelity == sim::Fidelity::fast && options.bundle_rails;
  sim::SimOptions sim_options{options.fidelity, true, options.link_stats, {},
                              options.bundle_rails, options.bundle_replicas};
  int own_rails = sim::own_rails(s, loaded.topology, sim_options);
  guard.costs.own_rails = own_rails;
  check_resources(s, loaded.topology, guard);
  warn_if_long(s, estimate_run_cost(s, options.fidelity == sim::Fidelity::fine,
                                    sim::rail_bundle(s, loaded.topology, sim_options),
                                    sim::replica_bundle(s, loaded.topology, sim_options),
                                    loaded.topology.gpus_per_node(), own_rails));
  OutputFiles files = open_outputs(options);
  std::vector<int> traced = traced_ranks(options, loaded, files.trace_out.is_open());
  if (!traced.empty())
    logger("trainsim.run")->info("tracing {} of {} ranks", traced.size(), s.execution.gpus());
  auto started = std::chrono::steady_clock::now();
  sim_options.trace_ranks = traced;
  sim_options.critical_path = options.critical_path;
  Evaluation step = evaluate(loaded, sim_options);
  const sim::SimResult& result = step.result;
  const StepSummary& summary = step.summary;
  RunInfo info{options.fidelity == sim::Fidelity::fast ? "fast" : "fine",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
               result.counters.activities(), result.rail_bundle, result.replica_bundle,
               result.rail_leader, result.own_rails};
  auto json = result_json(s, summary, info);
  json["stages"] = stage_breakdown_json(s, result);
  if (options.link_stats)
    json["link_tiers"] = link_tiers_json(loaded.topology, result.channel_bytes, result.step_time);
  write_outputs(files, loaded, result);
  if (!options.out_dir.empty())
    write_text_file((std::filesystem::path(options.out_dir) / "result.json").string(),
                    json.dump(2) + "\n", "--out");
  if (options.json)
    std::cout << json.dump(2) << "\n";
  else
    print_report(std::cout, s, loaded.topology, summary, info);
  return 0;
}

void add_run_command(CLI::App& app, cli::Command& command) {
  auto [cmd, run] = cli::add_command<RunOptions>(
      app, command, "run", "simulate one training step of a scenario and report it", run_command);
  cmd->add_option("scenario", run.scenario, "scenario file (default: scenarios/default.yaml)");
  cmd->add_option(
      "-o,--out", run.out_dir,
      "directory for result.json, links.csv and trace.json (what trainsim report reads)");
  cli::add_choice(*cmd, "--fidelity", run.fidelity,
                  {{"fast", sim::Fidelity::fast}, {"fine", sim::Fidelity::fine}},
                  "fast (default: merged flows) or fine (every algorithm step)");
  cmd->add_flag("--json", run.json, "print result.json instead of the text report");
  RunOptions* target = &run;
  cmd->add_flag_callback(
      "--no-link-stats", [target] { target->link_stats = false; },
      "do not record the bytes each link carries");
  cmd->add_flag_callback(
      "--no-critical-path", [target] { target->critical_path = false; },
      "do not follow the step's critical path (which GPUs and hand-overs the step waited on)");
  cmd->add_flag_callback(
      "--unbundled", [target] { target->bundle_rails = false; },
      "simulate every rail's flows, also where rail 0 could stand for all (fast mode)");
  cmd->add_flag(
      "--bundle-replicas", run.bundle_replicas,
      "run DP replica 0 for all replicas (fast mode, ring DP, TP blocks of two or more nodes, "
      "a non-blocking fat tree with ecmp: spray; docs/fast-mode.md)");
  // Renamed on 2026-12-06, when "fold" came to mean fast mode's program transform alone.
  cmd->add_flag_callback("--fold-replicas", [] {
       throw cli::UsageError("--fold-replicas is now --bundle-replicas (see: trainsim help run)");
     })->group("");
  cmd->add_flag("--force-memory", run.force_memory,
                "simulate a plan that does not fit in the GPU's memory (with a warning)");
  cmd->add_option("--trace", run.trace_file, "write a Chrome trace-event / Perfetto timeline JSON");
  cmd->add_option(
      "--trace-ranks", run.trace_ranks,
      "ranks to trace: all, pipeline:K, node:N, stage:S, R, A-B, comma-separated (default: all, or "
      "pipeline 0 when all would exceed ~100 MB)");
  cmd->add_option("--links", run.links_csv,
                  "write per-link bytes, busy time and utilization as CSV");
}

} // namespace trainsim
