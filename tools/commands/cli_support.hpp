// How trainsim's command line reads and fails, on top of CLI11. Option values are checked by
// our code, not by CLI11 validators, so help shows plain types ("--fidelity TEXT  fast
// (default) or fine") and a bad value is one InputError line with exit code 2, like every
// other bad input: "command line: --fidelity = 'medium': must be fast or fine". Usage errors
// (an unknown command or flag, a missing argument) are exit code 1 (docs/errors.md).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace trainsim::cli {

/// What a subcommand's callback picks to run once parsing succeeded.
using Command = std::function<int()>;

/// A subcommand and the options its flags fill in.
template <class Options>
struct Subcommand {
  CLI::App* app;
  Options& options;
};

/// Adds the subcommand `name` with options of its own, which its callback keeps alive: once
/// it is parsed, `command` becomes `run(options)`.
template <class Options>
Subcommand<Options> add_command(CLI::App& parent, Command& command, const std::string& name,
                                const std::string& description, int (*run)(const Options&)) {
  auto options = std::make_shared<Options>();
  CLI::App* app = parent.add_subcommand(name, description);
  app->callback([options, run, &command] { command = [options, run] { return run(*options); }; });
  return {app, *options};
}

/// The same for a subcommand (e.g. `topo describe`) of `parent` that shares its options.
template <class Options>
CLI::App* add_command(CLI::App& parent, std::shared_ptr<Options> options, Command& command,
                      const std::string& name, const std::string& description,
                      int (*run)(const Options&)) {
  CLI::App* app = parent.add_subcommand(name, description);
  app->callback([options, run, &command] { command = [options, run] { return run(*options); }; });
  return app;
}

/// A command-line usage error that CLI11 does not detect itself (unknown command); exit code 1.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The name messages use for an option declared as "-o,--out": its last name, "--out".
std::string option_name(const std::string& names);

/// Throws InputError("command line", name, value, problem).
[[noreturn]] void bad_value(const std::string& name, const std::string& value,
                            const std::string& problem);

/// Throws bad_value: "must be a, b or c", with a suggestion when `value` looks like a typo.
[[noreturn]] void bad_choice(const std::string& name, const std::string& value,
                             const std::vector<std::string>& words);

/// Throws bad_value unless `text` is a whole number that fits an int (`whole`) or a finite
/// number (otherwise).
void check_number(const std::string& name, const std::string& text, bool whole);

template <class T>
using Choices = std::vector<std::pair<std::string, T>>;

/// An option whose text must be one of the choices' words; sets `target` to that choice's value.
template <class T>
CLI::Option* add_choice(CLI::App& cmd, const std::string& names, T& target,
                        const Choices<T>& choices, const std::string& description) {
  std::vector<std::string> words;
  for (const auto& choice : choices) words.push_back(choice.first);
  auto set = [&target, choices, words, name = option_name(names)](const std::string& text) {
    for (const auto& [word, value] : choices)
      if (word == text) {
        target = value;
        return;
      }
    bad_choice(name, text, words);
  };
  return cmd.add_option_function<std::string>(names, set, description);
}

/// A text option whose value must be one of `words`.
CLI::Option* add_choice(CLI::App& cmd, const std::string& names, std::string& target,
                        const std::vector<std::string>& words, const std::string& description);

namespace detail {
template <class T>
struct Unwrapped {
  using type = T;
};
template <class T>
struct Unwrapped<std::optional<T>> {
  using type = T;
};
} // namespace detail

/// A numeric option (int or double, optionally std::optional): the text is checked by
/// check_number before CLI11 converts it, so a bad one is our line, not CLI11's.
template <class Target>
CLI::Option* add_number(CLI::App& cmd, const std::string& names, Target& target,
                        const std::string& description) {
  using Number = typename detail::Unwrapped<Target>::type;
  static_assert(std::is_same_v<Number, int> || std::is_same_v<Number, double>,
                "whole numbers are ints");
  auto check = [name = option_name(names)](std::string& text) {
    check_number(name, text, std::is_same_v<Number, int>);
    return std::string();
  };
  return cmd.add_option(names, target, description)->check(CLI::Validator(check, ""));
}

/// `--log-level LEVEL` on `app` and on every command under it, so it may come before or
/// after the command's name.
void add_log_level(CLI::App& app, std::string& level);

/// Checks the words that name a command (and a subcommand, for commands that need one, such
/// as topo) before CLI11 parses them; throws UsageError naming an unknown or missing command,
/// with the commands there are and a suggestion.
void check_command_words(const CLI::App& app, const std::vector<std::string>& args);

/// `trainsim help [COMMAND [SUBCOMMAND]]`: that command's help (the overview without one)
/// on stdout; throws UsageError for an unknown command.
int help_command(const CLI::App& app, const std::vector<std::string>& topic);

/// The names of the commands CLI11 parsed, outermost first, e.g. "topo export"; "" for none.
std::string parsed_command(const CLI::App& app);

} // namespace trainsim::cli
