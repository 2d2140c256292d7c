// The trainsim command line. Every user-facing failure arrives here as a trainsim::Error
// and leaves as one line on stderr with the documented exit code (docs/errors.md).
#include <functional>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "models/error.hpp"
#include "tools/run_command.hpp"

namespace {

using trainsim::ExitCode;

// Each subcommand's callback picks the command to run once parsing succeeded.
using Command = std::function<int()>;

void add_run(CLI::App& app, trainsim::RunOptions& run, Command& command) {
  auto* cmd = app.add_subcommand("run", "simulate one training step of a scenario and report it");
  cmd->add_option("scenario", run.scenario, "scenario file (default: scenarios/default.yaml)");
  cmd->add_option("--out", run.out_dir, "directory for result.json");
  cmd->add_option("--fidelity", run.fidelity, "fast (merged flows) or fine (every algorithm step)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, trainsim::sim::Fidelity>{{"fast", trainsim::sim::Fidelity::fast},
                                                         {"fine", trainsim::sim::Fidelity::fine}}));
  cmd->add_flag("--json", run.json, "print result.json instead of the text report");
  cmd->callback([&run, &command] { command = [&run] { return trainsim::run_command(run); }; });
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"trainsim: discrete-event simulation of distributed training steps on GPU clusters"};
  app.require_subcommand(1);
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.parse_complete_callback([&log_level] { spdlog::set_level(spdlog::level::from_str(log_level)); });
  Command command;
  trainsim::RunOptions run;
  add_run(app, run, command);
  try {
    app.parse(argc, argv);
    return command();
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1; // help and version succeed; usage errors are exit code 1
  } catch (const trainsim::Error& e) {
    std::cerr << "trainsim: " << e.what() << "\n";
    return static_cast<int>(e.exit_code());
  }
}
