// The trainsim command line. Every user-facing failure arrives here as a trainsim::Error
// and leaves as one line on stderr with the documented exit code (docs/errors.md).
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "models/error.hpp"
#include "tools/run_command.hpp"

namespace {

using trainsim::ExitCode;

void add_run(CLI::App& app, trainsim::RunOptions& run) {
  auto* cmd = app.add_subcommand("run", "simulate one training step of a scenario and report it");
  cmd->add_option("scenario", run.scenario, "scenario file (default: scenarios/default.yaml)");
  cmd->add_option("--out", run.out_dir, "directory for result.json");
  cmd->add_option("--fidelity", run.fidelity, "fast (merged flows) or fine (every algorithm step)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, trainsim::sim::Fidelity>{{"fast", trainsim::sim::Fidelity::fast},
                                                         {"fine", trainsim::sim::Fidelity::fine}}));
  cmd->add_flag("--json", run.json, "print result.json instead of the text report");
  cmd->callback([&run] { std::exit(trainsim::run_command(run)); });
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"trainsim: discrete-event simulation of distributed training steps on GPU clusters"};
  app.require_subcommand(1);
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.parse_complete_callback([&log_level] { spdlog::set_level(spdlog::level::from_str(log_level)); });
  trainsim::RunOptions run;
  add_run(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const trainsim::Error& e) {
    std::cerr << "trainsim: " << e.what() << "\n";
    return static_cast<int>(e.exit_code());
  }
  return 0;
}
