#include "tools/commands/validate_command.hpp"
#include <memory>

#include <CLI/CLI.hpp>

#include "tools/commands/cli_support.hpp"
#include "tools/formats/text.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "models/error.hpp"
#include "tools/formats/validation_report.hpp"
#include "tools/io/output_file.hpp"

namespace trainsim {
namespace {

// One PASS/FAIL line per criterion, then the published runs, which have none; true if all pass.
bool print_verdicts(const ValidationReport& r) {
  bool ok = true;
  for (const Verdict& v : verdicts(r)) {
    std::cout << (v.pass ? "PASS  " : "FAIL  ") << v.criterion << ": " << v.figure << "\n";
    ok = ok && v.pass;
  }
  for (const PublishedCheck& p : r.published)
    std::cout << "      published run " << p.name << ": predicted " << p.convention << " "
              << formatted("%.1f%%", 100 * p.predicted) << ", published "
              << formatted("%.1f%%", 100 * p.published) << " ("
              << formatted("%+.1f%%", 100 * p.error()) << ")\n";
  for (const BridgeCheck& b : r.bridge)
    std::cout << "      Megatron-Bridge " << b.release << " " << b.name << ": predicted "
              << formatted("%.0f", b.predicted) << " tokens/s/GPU, published "
              << formatted("%.0f", b.published) << " (" << formatted("%+.1f%%", 100 * b.error())
              << ")\n";
  return ok;
}

} // namespace

int validate_command(const ValidateOptions& options) {
  ValidateOptions o = options;
  if (!o.scenarios_dir.empty() && !std::filesystem::is_directory(o.scenarios_dir))
    throw InputError("command line", "--scenarios", o.scenarios_dir, "is not a directory");
  if (o.out_dir.empty())
    o.out_dir = fresh_directory("", "validation"); // a run never overwrites another
  prepare_output_dir(o.out_dir, "--out");          // fail now, not after minutes of simulating
  ValidationReport r = run_validation(o);
  std::filesystem::path dir(o.out_dir);
  std::string command = "trainsim validate" + std::string(o.quick ? " --quick" : "") +
                        (o.paper_scale ? " --paper-scale" : "") +
                        (o.scenarios_dir.empty() ? "" : " --scenarios " + o.scenarios_dir) +
                        " --out " + o.out_dir;
  write_text_file((dir / "validation.md").string(), validation_markdown(r, command), "--out");
  write_text_file((dir / "validation.json").string(), validation_json(r).dump(2) + "\n", "--out");
  bool ok = print_verdicts(r);
  std::cout << "wrote " << (dir / "validation.md").string() << " and validation.json ("
            << formatted("%.0f", r.wall_s) << " s)\n";
  if (!ok)
    std::cerr << "trainsim: validate: an acceptance criterion failed; see "
              << (dir / "validation.md").string() << "\n";
  return ok ? 0 : validation_failed_exit_code;
}

void add_validate_command(CLI::App& app, cli::Command& command) {
  auto [cmd, v] = cli::add_command<ValidateOptions>(
      app, command, "validate",
      "the simulator against the closed form, alpha-beta, published runs and its own fine mode "
      "(the full suite: about 40 minutes and 3 GB on a 2-core machine; --quick: under a "
      "minute)",
      validate_command);
  cmd->add_option(
      "-o,--out", v.out_dir,
      "directory for validation.md and validation.json (default: a new validation-YYYYmmdd-HHMMSS "
      "in the current directory)");
  CLI::Option* quick =
      cmd->add_flag("--quick", v.quick, "the CTest-sized subset, with the cheapest published run");
  cmd->add_flag("--paper-scale", v.paper_scale,
                "also the paper-scale replays: the frontier from 1.78e26 to 1e27 FLOP (2-D plans "
                "from 1e26), the scenario files of more than 20,000 GPUs and DeepSeek-V3's own "
                "2,048-GPU run (hours, and 18 GB for the 1M-GPU step)")
      ->excludes(quick);
  cmd->add_option("--scenarios", v.scenarios_dir,
                  "the scenarios folder to check (default: $TRAINSIM_DATA_DIR/scenarios, else "
                  "scenarios/ beside the program)");
}

} // namespace trainsim
