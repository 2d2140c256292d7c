// Internal invariants that every build checks, Release included. assert() is compiled out
// under NDEBUG, so a broken invariant in a Release build would run on into a wrong number or a
// crash; a failed TRAINSIM_CHECK throws InternalError instead, which tools/main.cpp prints as
// one line and turns into exit code 70 (docs/errors.md). Use it for what no input can cause;
// what a user can get wrong throws InputError (models/error.hpp).
#pragma once

#include <string>
#include <string_view>

#include "models/error.hpp"

namespace trainsim::detail {

[[noreturn]] inline void check_failed(const char* file, int line, const char* condition,
                                      std::string_view why = {}) {
  std::string message = "internal error: " + std::string(file) + ":" + std::to_string(line) + ": " +
                        condition + " failed";
  if (!why.empty()) message += " (" + std::string(why) + ")";
  throw InternalError(message + "; please report it with the command line");
}

} // namespace trainsim::detail

/// TRAINSIM_CHECK(condition) or TRAINSIM_CHECK(condition, why): throws InternalError naming
/// the file, the line and the condition when `condition` is false. `why` (anything a
/// std::string_view accepts) is evaluated only then.
#define TRAINSIM_CHECK(condition, ...)                                                             \
  (static_cast<bool>(condition) ? static_cast<void>(0)                                             \
                                : ::trainsim::detail::check_failed(                                \
                                      __FILE__, __LINE__, #condition __VA_OPT__(, ) __VA_ARGS__))
