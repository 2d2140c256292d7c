// The one error policy: anything a user can cause throws a trainsim::Error whose what() is a
// single self-contained line; tools/main.cpp catches it once, prints it and exits with
// exit_code(). Internal invariants use TRAINSIM_CHECK (models/check.hpp), which throws
// InternalError: the one Error no user input can cause.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace trainsim {

/// Documented process exit codes (docs/errors.md).
enum class ExitCode : int {
  ok = 0,
  input = 2,      ///< a scenario, topology file or command-line value is wrong
  simulation = 3, ///< the simulation could not complete (e.g. a collective deadlocked)
  resources = 4,  ///< refused: the run would not fit this machine
  io = 5,         ///< an output file could not be written
  internal = 70,  ///< a bug in trainsim, not in the input (EX_SOFTWARE of sysexits.h)
};

class Error : public std::runtime_error {
public:
  Error(ExitCode code, const std::string& line) : std::runtime_error(line), code_(code) {}
  [[nodiscard]] ExitCode exit_code() const { return code_; }

private:
  ExitCode code_;
};

/// A bad input value: "FILE: KEY = 'VALUE': PROBLEM".
class InputError : public Error {
public:
  InputError(std::string_view file, std::string_view key, std::string_view value,
             std::string_view problem);
  /// For problems that have no single key (e.g. an unreadable file): "FILE: PROBLEM".
  InputError(std::string_view file, std::string_view problem);
};

/// A broken internal invariant (TRAINSIM_CHECK): a bug, never the user's input. Code that
/// turns Errors into a verdict on its input (a rejected scenario, a fuzz input refused
/// cleanly) must let this one through.
class InternalError : public Error {
public:
  explicit InternalError(const std::string& line) : Error(ExitCode::internal, line) {}
};

/// The closest candidate by edit distance ignoring case, or "" when none is plausibly a typo of
/// `word`.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

/// " (did you mean 'x'?)" or "" — ready to append to a message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

} // namespace trainsim
