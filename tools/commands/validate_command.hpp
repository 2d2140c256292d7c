// `trainsim validate`: runs the suite (tools/study/validation.hpp), prints a verdict per
// acceptance criterion and writes validation.md and validation.json.
#pragma once

#include "tools/commands/cli_support.hpp"

#include "tools/study/validation.hpp"

namespace trainsim {

/// The exit code of a run whose acceptance criterion failed (docs/errors.md).
inline constexpr int validation_failed_exit_code = 6;

/// Runs the suite, prints one PASS/FAIL line per criterion (and the published runs' MFU) and
/// writes out_dir/validation.md and validation.json; 0 when every acceptance criterion holds,
/// else validation_failed_exit_code. The output directory is checked before anything runs.
int validate_command(const ValidateOptions& options);

/// Registers `validate` and its options on the command line; parsing it sets `command`.
void add_validate_command(CLI::App& app, cli::Command& command);

} // namespace trainsim
