#include "tools/commands/cli_support.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>

#include "models/error.hpp"
#include "models/params.hpp"

namespace trainsim::cli {
namespace {

std::vector<const CLI::App*> commands_of(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : commands_of(app)) names.push_back(command->get_name());
  return names;
}

const CLI::App* find_command(const CLI::App& app, const std::string& name) {
  for (const CLI::App* command : commands_of(app))
    if (command->get_name() == name) return command;
  return nullptr;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out.append(out.empty() ? "" : ", ").append(w);
  return out;
}

// "the commands are: ..." or, below the top, "the commands of trainsim topo are: ...".
std::string command_list(const CLI::App& app, const std::string& path) {
  return "the commands" + (app.get_parent() == nullptr ? std::string() : " of " + path) +
         " are: " + join(command_names(app));
}

[[noreturn]] void unknown_command(const CLI::App& app, const std::string& path,
                                  const std::string& word) {
  if (commands_of(app).empty())
    throw UsageError("unknown command '" + word + "': " + path + " has no subcommands");
  throw UsageError("unknown command '" + word + "'" + did_you_mean(word, command_names(app)) +
                   "; " + command_list(app, path));
}

bool is_help_or_version(const std::string& arg) {
  return arg == "-h" || arg == "--help" || arg == "--version";
}

} // namespace

std::string option_name(const std::string& names) { return names.substr(names.rfind(',') + 1); }

void bad_value(const std::string& name, const std::string& value, const std::string& problem) {
  throw InputError("command line", name, value, problem);
}

void bad_choice(const std::string& name, const std::string& value,
                const std::vector<std::string>& words) {
  bad_value(name, value, "must be " + alternatives(words) + did_you_mean(value, words));
}

void check_number(const std::string& name, const std::string& text, bool whole) {
  const char* end = text.data() + text.size();
  if (whole) {
    long long value = 0;
    auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || stop != end || value < std::numeric_limits<int>::min() ||
        value > std::numeric_limits<int>::max())
      bad_value(name, text, "must be a whole number");
    return;
  }
  char* stop = nullptr;
  double value = std::strtod(text.c_str(), &stop);
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) || stop != end ||
      !std::isfinite(value))
    bad_value(name, text, "must be a number");
}

CLI::Option* add_choice(CLI::App& cmd, const std::string& names, std::string& target,
                        const std::vector<std::string>& words, const std::string& description) {
  Choices<std::string> choices;
  for (const std::string& w : words) choices.emplace_back(w, w);
  return add_choice(cmd, names, target, choices, description);
}

void add_log_level(CLI::App& app, std::string& level) {
  add_choice(app, "--log-level", level, {"trace", "debug", "info", "warn", "error", "off"},
             "trace, debug, info, warn (default), error or off (before or after the command)");
  for (const CLI::App* command : commands_of(app))
    add_log_level(*app.get_subcommand(command->get_name()), level);
}

void check_command_words(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* current = &app;
  std::string path = app.get_name();
  size_t i = 0;
  // Only commands that need a subcommand (the program, topo) take a command word next.
  while (current->get_require_subcommand_min() > 0) {
    for (; i < args.size() && args[i].rfind('-', 0) == 0; ++i) {
      if (is_help_or_version(args[i])) return; // CLI11 prints the help of what came before
      if (args[i] == "--log-level") ++i;       // the only option with a value before a command
    }
    if (i == args.size()) throw UsageError("no command given; " + command_list(*current, path));
    const CLI::App* next = find_command(*current, args[i]);
    if (next == nullptr) unknown_command(*current, path, args[i]);
    current = next;
    path += " " + args[i++];
  }
}

int help_command(const CLI::App& app, const std::vector<std::string>& topic) {
  const CLI::App* current = &app;
  std::string path = app.get_name();
  for (const std::string& word : topic) {
    const CLI::App* next = find_command(*current, word);
    if (next == nullptr) unknown_command(*current, path, word);
    current = next;
    path += " " + word;
  }
  // The formatter directly: App::help() would describe the parsed command, `help` itself.
  std::cout << current->get_formatter()->make_help(current, path, CLI::AppFormatMode::Normal);
  return 0;
}

std::string parsed_command(const CLI::App& app) {
  std::string path;
  for (const CLI::App* current = &app; !current->get_subcommands().empty();) {
    current = current->get_subcommands().front();
    path.append(path.empty() ? "" : " ").append(current->get_name());
  }
  return path;
}

} // namespace trainsim::cli
