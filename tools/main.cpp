// The trainsim command line. Every user-facing failure arrives here as a trainsim::Error
// and leaves as one line on stderr with the documented exit code (docs/errors.md).
#include <functional>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "models/error.hpp"
#include "tools/analysis_commands.hpp"
#include "tools/compare_command.hpp"
#include "tools/html_report.hpp"
#include "tools/run_command.hpp"
#include "tools/sweep_command.hpp"
#include "tools/topo_command.hpp"
#include "tools/validate_command.hpp"
#include "tools/version.hpp"

namespace {

using trainsim::ExitCode;

// Each subcommand's callback picks the command to run once parsing succeeded.
using Command = std::function<int()>;

void add_run(CLI::App& app, trainsim::RunOptions& run, Command& command) {
  auto* cmd = app.add_subcommand("run", "simulate one training step of a scenario and report it");
  cmd->add_option("scenario", run.scenario, "scenario file (default: scenarios/default.yaml)");
  cmd->add_option("--out", run.out_dir, "directory for result.json, links.csv and trace.json (what trainsim report reads)");
  cmd->add_option("--fidelity", run.fidelity, "fast (merged flows) or fine (every algorithm step)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, trainsim::sim::Fidelity>{{"fast", trainsim::sim::Fidelity::fast},
                                                         {"fine", trainsim::sim::Fidelity::fine}}));
  cmd->add_flag("--json", run.json, "print result.json instead of the text report");
  cmd->add_flag("!--no-link-stats", run.link_stats, "do not record the bytes each link carries");
  cmd->add_option("--trace", run.trace_file, "write a Chrome trace-event / Perfetto timeline JSON");
  cmd->add_option("--trace-ranks", run.trace_ranks,
                  "ranks to trace: all, pipeline:K, node:N, stage:S, R, A-B, comma-separated (default: all, or "
                  "pipeline 0 when all would exceed ~100 MB)");
  cmd->add_option("--links", run.links_csv, "write per-link bytes, busy time and utilization as CSV");
  cmd->callback([&run, &command] { command = [&run] { return trainsim::run_command(run); }; });
}

void add_bounds(CLI::App& app, trainsim::BoundsOptions& bounds, Command& command) {
  auto* cmd = app.add_subcommand("bounds", "the closed-form lower bound on a scenario's step time, term by term");
  cmd->add_option("scenario", bounds.scenario, "scenario file (default: scenarios/default.yaml)");
  cmd->add_flag("--json", bounds.json, "print the bound as JSON");
  cmd->callback([&bounds, &command] { command = [&bounds] { return trainsim::bounds_command(bounds); }; });
}

void add_frontier(CLI::App& app, trainsim::FrontierCommandOptions& f, Command& command) {
  auto* cmd = app.add_subcommand("frontier", "the paper's utilization vs training-compute frontier (dense and MoE)");
  auto& k = f.knobs;
  cmd->add_option("--out", f.out_dir, "directory for frontier.csv, frontier.json, frontier.svg")->capture_default_str();
  cmd->add_option("--gpu", k.gpu, "hardware preset: h100, a100, b200")->capture_default_str();
  cmd->add_option("--duration", f.duration, "run duration, e.g. 3months, 90days, 2160h (default 3months)");
  cmd->add_option("--batch-coefficient", k.batch_tokens_at_1e25, "critical batch at 1e25 FLOP, tokens")
      ->capture_default_str();
  cmd->add_option("--batch-exponent", k.batch_exponent, "critical batch law exponent")->capture_default_str();
  cmd->add_option("--aspect-ratio", k.aspect_ratio, "d_model / layers")->capture_default_str();
  cmd->add_option("--ff-ratio", k.ff_ratio, "d_ff / d_model")->capture_default_str();
  cmd->add_option("--tokens-per-param", k.tokens_per_param, "training tokens per parameter")->capture_default_str();
  cmd->add_option("--experts", k.experts, "experts per layer on the MoE curve")->capture_default_str();
  cmd->add_option("--top-k", k.top_k, "experts per token on the MoE curve")->capture_default_str();
  cmd->add_option("--bandwidth-scale", k.bandwidth_scale, "multiplies NVLink and network bandwidth")
      ->capture_default_str();
  cmd->add_option("--latency-scale", k.latency_scale, "multiplies kernel, NVLink and network latency")
      ->capture_default_str();
  cmd->add_option("--kernel-latency", f.kernel_latency, "launch + sync per kernel, e.g. 4us (default: preset)");
  cmd->add_option("--nvlink-latency", f.nvlink_latency, "per collective step inside a node (default 1us)");
  cmd->add_option("--network-latency", f.network_latency, "per collective step across nodes (default 3us)");
  cmd->add_option("--collective", k.collective, "how collective latency grows with the group: tree (log2 p) or ring (p-1)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, trainsim::CollectiveLatency>{
          {"tree", trainsim::CollectiveLatency::tree}, {"ring", trainsim::CollectiveLatency::ring}}))
      ->capture_default_str();
  cmd->add_option("--efficiency", k.matmul_efficiency, "sustained fraction of peak (default: preset)");
  cmd->add_option("--max-tp-2d", k.max_tp_2d, "largest second tensor-parallel axis searched (1: 1-D TP only)")
      ->capture_default_str();
  cmd->add_option("--max-interleave", k.max_interleave, "largest interleaved-pipeline chunk count searched")
      ->capture_default_str();
  cmd->add_option("--knee-fraction", k.knee_fraction, "knee: utilization >= this x the sustained maximum")
      ->capture_default_str();
  cmd->add_option("--points-per-decade", k.points_per_decade, "compute levels per decade")->capture_default_str();
  cmd->callback([&f, &command] { command = [&f] { return trainsim::frontier_command(f); }; });
}

void add_topo(CLI::App& app, trainsim::TopoOptions& topo, Command& command) {
  auto* cmd = app.add_subcommand("topo", "describe or export a scenario's topology graph");
  cmd->require_subcommand(1);
  auto* describe = cmd->add_subcommand("describe", "GPUs, switches, links per tier, bisection, diameter");
  describe->add_option("scenario", topo.scenario, "scenario file (default: scenarios/default.yaml)");
  describe->callback([&topo, &command] { command = [&topo] { return trainsim::topo_describe_command(topo); }; });
  auto* exporter = cmd->add_subcommand("export", "the graph as Graphviz DOT, GraphML or JSON");
  exporter->add_option("scenario", topo.scenario, "scenario file (default: scenarios/default.yaml)");
  exporter->add_option("--format", topo.format, "dot, graphml or json")->capture_default_str();
  exporter->add_option("--out", topo.out, "file to write (default: standard output)");
  exporter->callback([&topo, &command] { command = [&topo] { return trainsim::topo_export_command(topo); }; });
}

void add_validate(CLI::App& app, trainsim::ValidateOptions& v, Command& command) {
  auto* cmd = app.add_subcommand("validate", "the simulator against the closed form, alpha-beta and published runs");
  cmd->add_option("--out", v.out_dir, "directory for validation.md and validation.json")->capture_default_str();
  cmd->add_flag("--quick", v.quick, "the CTest-sized subset");
  cmd->callback([&v, &command] { command = [&v] { return trainsim::validate_command(v); }; });
}

void add_report(CLI::App& app, trainsim::ReportOptions& r, Command& command) {
  auto* cmd = app.add_subcommand("report", "one self-contained HTML page from a trainsim run --out directory");
  cmd->add_option("result_dir", r.result_dir, "directory with result.json (and trace.json, links.csv, frontier.svg)")
      ->required();
  cmd->add_option("-o,--out", r.out, "HTML file to write (default: RESULT_DIR/report.html)");
  cmd->callback([&r, &command] { command = [&r] { return trainsim::report_command(r); }; });
}

void add_compare(CLI::App& app, trainsim::CompareOptions& c, Command& command) {
  auto* cmd = app.add_subcommand("compare", "the same workload on several systems or topologies, side by side");
  cmd->add_option("scenarios", c.scenarios, "scenario files")->required();
  cmd->add_option("--format", c.format, "text, markdown or csv")->check(CLI::IsMember({"text", "markdown", "csv"}))
      ->capture_default_str();
  cmd->add_option("-j,--jobs", c.jobs, "scenarios simulated at a time (default: one per processor)");
  cmd->callback([&c, &command] { command = [&c] { return trainsim::compare_command(c); }; });
}

void add_sweep(CLI::App& app, trainsim::SweepOptions& s, trainsim::MergeOptions& m, Command& command) {
  auto* cmd = app.add_subcommand(
      "sweep", "every combination of --set values (or, with --zip, their pairs), one CSV row per variant");
  cmd->add_option("scenario", s.scenario, "scenario file");
  cmd->add_option("--set", s.sets, "KEY=V1,V2,...: a dotted scenario key and its values (repeat for a grid)");
  cmd->add_flag("--zip", s.zip, "pair the i-th values of every --set (lists of one length) instead of the grid");
  cmd->add_option("-j,--jobs", s.jobs, "variants simulated at a time (default: one per processor)");
  cmd->add_option("--shard", s.shard, "I/N: run only variants I, I+N, I+2N, ... (0 <= I < N)");
  cmd->add_option("-o,--out", s.out, "CSV file (default: standard output)");
  auto* merge = cmd->add_subcommand("merge", "join the CSVs of the shards of one sweep, in grid order");
  merge->add_option("inputs", m.inputs, "shard CSV files")->required();
  merge->add_option("-o,--out", m.out, "CSV file (default: standard output)");
  merge->callback([&m, &command] { command = [&m] { return trainsim::sweep_merge_command(m); }; });
  cmd->callback([cmd, &s, &command] {
    if (cmd->got_subcommand("merge")) return;
    if (s.scenario.empty()) throw CLI::RequiredError("scenario");
    command = [&s] { return trainsim::sweep_command(s); };
  });
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"trainsim: discrete-event simulation of distributed training steps on GPU clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "trainsim " + trainsim::version(), "print trainsim's version and exit");
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.parse_complete_callback([&log_level] { spdlog::set_level(spdlog::level::from_str(log_level)); });
  Command command;
  trainsim::RunOptions run;
  add_run(app, run, command);
  trainsim::BoundsOptions bounds;
  add_bounds(app, bounds, command);
  trainsim::FrontierCommandOptions frontier;
  add_frontier(app, frontier, command);
  trainsim::TopoOptions topo;
  add_topo(app, topo, command);
  trainsim::ValidateOptions validate;
  add_validate(app, validate, command);
  trainsim::ReportOptions report;
  add_report(app, report, command);
  trainsim::CompareOptions compare;
  add_compare(app, compare, command);
  trainsim::SweepOptions sweep;
  trainsim::MergeOptions merge;
  add_sweep(app, sweep, merge, command);
  try {
    app.parse(argc, argv);
    return command();
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1; // help and version succeed; usage errors are exit code 1
  } catch (const trainsim::Error& e) {
    std::cerr << "trainsim: " << e.what() << "\n";
    return static_cast<int>(e.exit_code());
  } catch (const std::exception& e) {
    // A bug, not a user error: still one line, with an exit code of its own.
    std::cerr << "trainsim: internal error: " << e.what() << "\n";
    return 70;
  }
}
