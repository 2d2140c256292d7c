// `trainsim report RESULT_DIR`: the HTML report (formats/html_report) of what `trainsim run
// --out DIR` wrote: result.json, and when present trace.json, links.csv and frontier.svg
// (from `trainsim frontier --out`).
#pragma once

#include "tools/commands/cli_support.hpp"

#include <string>

namespace trainsim {

struct ReportOptions {
  std::string result_dir; ///< holds result.json
  std::string out;        ///< the HTML file; empty: RESULT_DIR/report.html
};

/// Returns the exit code; throws InputError when result.json is missing or malformed,
/// Error(ExitCode::io) when the page cannot be written.
int report_command(const ReportOptions& options);

/// Registers `report` and its options on the command line; parsing it sets `command`.
void add_report_command(CLI::App& app, cli::Command& command);

} // namespace trainsim
