// The trainsim command line. Every user-facing failure arrives here as a trainsim::Error
// and leaves as one line on stderr with the documented exit code (docs/errors.md).
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "models/error.hpp"
#include "tools/commands/bounds_command.hpp"
#include "tools/commands/frontier_command.hpp"
#include "tools/commands/cli_support.hpp"
#include "tools/commands/compare_command.hpp"
#include "tools/commands/report_command.hpp"
#include "tools/commands/run_command.hpp"
#include "tools/commands/sweep_command.hpp"
#include "tools/commands/topo_command.hpp"
#include "tools/commands/validate_command.hpp"
#include "tools/io/version.hpp"

namespace {

using trainsim::ExitCode;
namespace cli = trainsim::cli;

// The exit codes that belong to the program, not to a command (docs/errors.md).
constexpr int usage_exit_code = 1;     // an unknown command or flag, a missing argument
constexpr int internal_exit_code = static_cast<int>(ExitCode::internal); // a bug: EX_SOFTWARE of sysexits.h

// Each subcommand's callback picks the command to run once parsing succeeded.
using Command = std::function<int()>;

void add_run(CLI::App& app, trainsim::RunOptions& run, Command& command) {
  auto* cmd = app.add_subcommand("run", "simulate one training step of a scenario and report it");
  cmd->add_option("scenario", run.scenario, "scenario file (default: scenarios/default.yaml)");
  cmd->add_option("-o,--out", run.out_dir,
                  "directory for result.json, links.csv and trace.json (what trainsim report reads)");
  cli::add_choice(*cmd, "--fidelity", run.fidelity,
                  {{"fast", trainsim::sim::Fidelity::fast}, {"fine", trainsim::sim::Fidelity::fine}},
                  "fast (default: merged flows) or fine (every algorithm step)");
  cmd->add_flag("--json", run.json, "print result.json instead of the text report");
  cmd->add_flag_callback("--no-link-stats", [&run] { run.link_stats = false; },
                         "do not record the bytes each link carries");
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
  cmd->add_option("-o,--out", f.out_dir, "directory for frontier.csv, frontier.json, frontier.svg")
      ->capture_default_str();
  cmd->add_option("--gpu", k.gpu, "hardware preset: h100, a100, b200")->capture_default_str();
  cmd->add_option("--duration", f.duration, "run duration, e.g. 3months, 90days, 2160h (default 3months)");
  cli::add_number(*cmd, "--batch-coefficient", k.batch_tokens_at_1e25, "critical batch at 1e25 FLOP, tokens")
      ->capture_default_str();
  cli::add_number(*cmd, "--batch-exponent", k.batch_exponent, "critical batch law exponent")->capture_default_str();
  cli::add_number(*cmd, "--aspect-ratio", k.aspect_ratio, "d_model / layers")->capture_default_str();
  cli::add_number(*cmd, "--ff-ratio", k.ff_ratio, "d_ff / d_model")->capture_default_str();
  cli::add_number(*cmd, "--tokens-per-param", k.tokens_per_param, "training tokens per parameter")
      ->capture_default_str();
  cli::add_number(*cmd, "--experts", k.experts, "experts per layer on the MoE curve")->capture_default_str();
  cli::add_number(*cmd, "--top-k", k.top_k, "experts per token on the MoE curve")->capture_default_str();
  cli::add_number(*cmd, "--bandwidth-scale", k.bandwidth_scale, "multiplies NVLink and network bandwidth")
      ->capture_default_str();
  cli::add_number(*cmd, "--latency-scale", k.latency_scale, "multiplies kernel, NVLink and network latency")
      ->capture_default_str();
  cmd->add_option("--kernel-latency", f.kernel_latency, "launch + sync per kernel, e.g. 4us (default: preset)");
  cmd->add_option("--nvlink-latency", f.nvlink_latency, "per collective step inside a node (default 1us)");
  cmd->add_option("--network-latency", f.network_latency, "per collective step across nodes (default 3us)");
  cli::add_choice(*cmd, "--collective", k.collective,
                  {{"tree", trainsim::CollectiveLatency::tree}, {"ring", trainsim::CollectiveLatency::ring}},
                  "how collective latency grows with the group: tree (default: log2 p) or ring (p-1)");
  cli::add_number(*cmd, "--efficiency", k.matmul_efficiency, "sustained fraction of peak (default: preset)");
  cli::add_number(*cmd, "--max-tp-2d", k.max_tp_2d, "largest second tensor-parallel axis searched (1: 1-D TP only)")
      ->capture_default_str();
  cli::add_number(*cmd, "--max-interleave", k.max_interleave, "largest interleaved-pipeline chunk count searched")
      ->capture_default_str();
  cli::add_number(*cmd, "--knee-fraction", k.knee_fraction, "knee: utilization >= this x the sustained maximum")
      ->capture_default_str();
  cli::add_number(*cmd, "--points-per-decade", k.points_per_decade, "compute levels per decade")->capture_default_str();
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
  exporter->add_option("-o,--out", topo.out, "file to write (default: standard output)");
  exporter->callback([&topo, &command] { command = [&topo] { return trainsim::topo_export_command(topo); }; });
}

void add_validate(CLI::App& app, trainsim::ValidateOptions& v, Command& command) {
  auto* cmd = app.add_subcommand("validate", "the simulator against the closed form, alpha-beta and published runs");
  cmd->add_option("-o,--out", v.out_dir,
                  "directory for validation.md and validation.json (default: a new validation-YYYYmmdd-HHMMSS "
                  "in the current directory)");
  cmd->add_flag("--quick", v.quick, "the CTest-sized subset, with the cheapest published run");
  cmd->add_option("--scenarios", v.scenarios_dir,
                  "the scenarios folder to check (default: $TRAINSIM_DATA_DIR/scenarios, else scenarios/ beside the program)");
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
  cli::add_choice(*cmd, "--format", c.format, {"text", "markdown", "csv"}, "text (default), markdown or csv");
  cli::add_number(*cmd, "-j,--jobs", c.jobs, "scenarios simulated at a time (default: one per processor)");
  cmd->callback([&c, &command] { command = [&c] { return trainsim::compare_command(c); }; });
}

void add_sweep(CLI::App& app, trainsim::SweepOptions& s, trainsim::MergeOptions& m, Command& command) {
  auto* cmd = app.add_subcommand(
      "sweep", "every combination of --set values (or, with --zip, their pairs), one CSV row per variant");
  cmd->add_option("scenario", s.scenario, "scenario file");
  cmd->add_option("--set", s.sets, "KEY=V1,V2,...: a dotted scenario key and its values (repeat for a grid)");
  cmd->add_flag("--zip", s.zip, "pair the i-th values of every --set (lists of one length) instead of the grid");
  cli::add_number(*cmd, "-j,--jobs", s.jobs, "variants simulated at a time (default: one per processor)");
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

void add_help(CLI::App& app, std::vector<std::string>& topic, Command& command) {
  auto* cmd =
      app.add_subcommand("help", "a command's options: trainsim help COMMAND (e.g. help run, help topo export)");
  cmd->add_option("command", topic, "the command");
  cmd->callback([&app, &topic, &command] { command = [&app, &topic] { return cli::help_command(app, topic); }; });
}

// A CLI11 error as one line. Values of known options are bad input (exit code 2), like every
// other bad value; the rest is usage (exit code 1): docs/errors.md.
int parse_failure(const CLI::App& app, const CLI::ParseError& e) {
  bool value = dynamic_cast<const CLI::ConversionError*>(&e) != nullptr ||
               dynamic_cast<const CLI::ValidationError*>(&e) != nullptr;
  std::string command = cli::parsed_command(app);
  std::cerr << "trainsim: " << (value ? "command line: " : "") << e.what() << " (see: trainsim help"
            << (command.empty() ? "" : " " + command) << ")\n";
  return value ? static_cast<int>(ExitCode::input) : usage_exit_code;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"trainsim: discrete-event simulation of distributed training steps on GPU clusters", "trainsim"};
  app.require_subcommand(1);
  // Set before the commands are added: they inherit the help flag and the formatter.
  app.set_help_flag("-h,--help", "print this help and exit");
  app.get_formatter()->label("Subcommands", "Commands");
  app.get_formatter()->label("SUBCOMMAND", "COMMAND");
  app.get_formatter()->label("Positionals", "Arguments");
  app.set_version_flag("--version", "trainsim " + trainsim::version(), "print trainsim's version and exit");
  app.footer("Exit codes: 0 success, 1 usage, 2 bad input, 3 simulation failed, 4 refused (too big for this "
             "machine), 5 cannot write an output, 6 a validation criterion failed, 70 internal error "
             "(docs/errors.md).");
  std::string log_level = "warn";
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
  std::vector<std::string> help_topic;
  add_help(app, help_topic, command);
  cli::add_log_level(app, log_level);
  try {
    cli::check_command_words(app, std::vector<std::string>(argv + 1, argv + argc));
    app.parse(argc, argv);
    return command();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e); // --help and --version
    return parse_failure(app, e);
  } catch (const cli::UsageError& e) {
    std::cerr << "trainsim: " << e.what() << "\n";
    return usage_exit_code;
  } catch (const trainsim::Error& e) {
    std::cerr << "trainsim: " << e.what() << "\n";
    return static_cast<int>(e.exit_code());
  } catch (const std::exception& e) {
    // A bug, not a user error: still one line, with an exit code of its own.
    std::cerr << "trainsim: internal error: " << e.what() << "\n";
    return internal_exit_code;
  } catch (...) {
    std::cerr << "trainsim: internal error: an exception that is not a std::exception\n";
    return internal_exit_code;
  }
}
