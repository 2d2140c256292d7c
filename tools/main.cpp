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
#include "tools/commands/goodput_command.hpp"
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
constexpr int usage_exit_code = 1; // an unknown command or flag, a missing argument
constexpr int internal_exit_code =
    static_cast<int>(ExitCode::internal); // a bug: EX_SOFTWARE of sysexits.h

using cli::Command;

// Every command, in the order `trainsim --help` lists them; each registers itself from its
// own file in tools/commands/.
using AddCommand = void (*)(CLI::App&, Command&);
constexpr AddCommand kCommands[] = {trainsim::add_run_command,      trainsim::add_bounds_command,
                                    trainsim::add_frontier_command, trainsim::add_topo_command,
                                    trainsim::add_validate_command, trainsim::add_report_command,
                                    trainsim::add_compare_command,  trainsim::add_sweep_command,
                                    trainsim::add_goodput_command};

void add_help(CLI::App& app, std::vector<std::string>& topic, Command& command) {
  auto* cmd = app.add_subcommand(
      "help", "a command's options: trainsim help COMMAND (e.g. help run, help topo export)");
  cmd->add_option("command", topic, "the command");
  cmd->callback([&app, &topic, &command] {
    command = [&app, &topic] { return cli::help_command(app, topic); };
  });
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
  CLI::App app{"trainsim: discrete-event simulation of distributed training steps on GPU clusters",
               "trainsim"};
  app.require_subcommand(1);
  // Set before the commands are added: they inherit the help flag and the formatter.
  app.set_help_flag("-h,--help", "print this help and exit");
  app.get_formatter()->label("Subcommands", "Commands");
  app.get_formatter()->label("SUBCOMMAND", "COMMAND");
  app.get_formatter()->label("Positionals", "Arguments");
  app.set_version_flag("--version", "trainsim " + trainsim::version(),
                       "print trainsim's version and exit");
  app.footer(
      "Exit codes: 0 success, 1 usage, 2 bad input, 3 simulation failed, 4 refused (too big for "
      "this "
      "machine), 5 cannot write an output, 6 a validation criterion failed, 70 internal error "
      "(docs/errors.md).");
  std::string log_level = "warn";
  app.parse_complete_callback(
      [&log_level] { spdlog::set_level(spdlog::level::from_str(log_level)); });
  Command command;
  for (AddCommand add : kCommands) add(app, command);
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
