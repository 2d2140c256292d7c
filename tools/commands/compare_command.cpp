#include "tools/commands/compare_command.hpp"
#include <memory>

#include <CLI/CLI.hpp>

#include "tools/commands/cli_support.hpp"
#include "tools/formats/text.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "models/error.hpp"
#include "models/units.hpp"
#include "tools/io/provenance.hpp"
#include "tools/io/version.hpp"

namespace trainsim {
namespace {

using Row = std::vector<std::string>;

std::string time_cell(double s) { return s > 0 ? format(Seconds(s)) : "-"; }

Row header(bool csv) {
  if (csv)
    return {"scenario",   "gpus",           "step_time_s",  "mfu",
            "tp_comm_s",  "pp_comm_s",      "dp_comm_s",    "ep_comm_s",
            "cp_comm_s",  "bubble_s",       "busiest_tier", "busiest_utilization",
            "bound_s",    "sim_over_bound", "error",        "hardware",
            "input_hash", "trainsim"};
  return {"scenario", "GPUs",    "step time", "MFU",          "TP comm", "PP comm",  "DP comm",
          "EP comm",  "CP comm", "bubble",    "busiest tier", "bound",   "sim/bound"};
}

Row csv_row(const std::string& name, const VariantResult& r) {
  auto g = [](double v) { return formatted("%.9g", v); };
  return {name,
          std::to_string(r.gpus),
          g(r.step_time_s),
          g(r.mfu),
          g(r.tp_comm_s),
          g(r.pp_comm_s),
          g(r.dp_comm_s),
          g(r.ep_comm_s),
          g(r.cp_comm_s),
          g(r.bubble_s),
          r.busiest_tier,
          g(r.busiest_utilization),
          g(r.bound_s),
          r.bound_s > 0 ? g(r.step_time_s / r.bound_s) : "",
          r.error};
}

// Below the table (text, markdown): what each scenario was, one row each.
std::vector<Row> input_rows(const std::vector<ComparedInput>& inputs) {
  std::vector<Row> rows{{"scenario", "simulated (trainsim " + version() + ")", "input"}};
  for (const ComparedInput& in : inputs) rows.push_back({in.name, in.hardware, in.hash});
  return rows;
}

Row text_row(const std::string& name, const VariantResult& r) {
  if (!r.error.empty()) return {name, "failed: " + r.error};
  return {name,
          std::to_string(r.gpus),
          time_cell(r.step_time_s),
          formatted("%.1f %%", 100 * r.mfu),
          time_cell(r.tp_comm_s),
          time_cell(r.pp_comm_s),
          time_cell(r.dp_comm_s),
          time_cell(r.ep_comm_s),
          time_cell(r.cp_comm_s),
          time_cell(r.bubble_s),
          r.busiest_tier + " (" + formatted("%.0f %%", 100 * r.busiest_utilization) + ")",
          time_cell(r.bound_s),
          formatted("%.3f", r.step_time_s / r.bound_s)};
}

void print_csv(std::ostream& out, const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csv_field(row[i]);
    out << "\n";
  }
}

void print_markdown(std::ostream& out, const std::vector<Row>& rows) {
  for (size_t r = 0; r < rows.size(); ++r) {
    out << "|";
    for (const auto& cell : rows[r]) out << " " << cell << " |";
    out << "\n";
    if (r == 0) {
      out << "|";
      for (size_t i = 0; i < rows[0].size(); ++i) out << (i == 0 ? "---|" : "---:|");
      out << "\n";
    }
  }
}

void print_text(std::ostream& out, const std::vector<Row>& rows) {
  std::vector<size_t> width(rows[0].size(), 0);
  for (const Row& row : rows)
    for (size_t i = 0; i < row.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], row[i].size());
  for (const Row& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      std::string pad(i < width.size() ? width[i] - std::min(width[i], row[i].size()) : 0, ' ');
      line += i == 0 ? row[i] + pad : "  " + pad + row[i]; // names left, figures right
    }
    out << line << "\n";
  }
}

} // namespace

void print_comparison(std::ostream& out, const std::vector<ComparedInput>& inputs,
                      const std::vector<VariantResult>& results, const std::string& format) {
  bool csv = format == "csv";
  std::vector<Row> rows{header(csv)};
  for (size_t i = 0; i < results.size(); ++i) {
    rows.push_back(csv ? csv_row(inputs[i].name, results[i])
                       : text_row(inputs[i].name, results[i]));
    if (csv) rows.back().insert(rows.back().end(), {inputs[i].hardware, inputs[i].hash, version()});
  }
  if (csv) return print_csv(out, rows);
  if (format == "markdown") {
    print_markdown(out, rows);
    out << "\n";
    return print_markdown(out, input_rows(inputs));
  }
  print_text(out, rows);
  out << "\nsimulated by trainsim " << version() << ":\n";
  for (const ComparedInput& in : inputs)
    out << "  " << in.name << " (" << in.hash << "): " << in.hardware << "\n";
}

int compare_command(const CompareOptions& o) {
  if (o.scenarios.empty())
    throw InputError("command line", "compare needs at least one scenario file");
  // Loaded here, so a bad file fails before anything runs; the children inherit them.
  std::vector<LoadedScenario> loaded;
  std::vector<ComparedInput> inputs;
  std::vector<std::function<VariantResult()>> tasks;
  for (const std::string& path : o.scenarios) {
    loaded.push_back(load_scenario(path));
    const Scenario& s = loaded.back().scenario;
    inputs.push_back({std::filesystem::path(path).stem().string(), hardware_line(s), s.input_hash});
  }
  for (const LoadedScenario& l : loaded) tasks.push_back([&l] { return run_variant(l); });
  std::vector<VariantResult> results =
      run_in_processes(tasks, o.jobs > 0 ? o.jobs : default_jobs());
  print_comparison(std::cout, inputs, results, o.format);
  bool failed = std::any_of(results.begin(), results.end(),
                            [](const VariantResult& r) { return !r.error.empty(); });
  return failed ? static_cast<int>(ExitCode::simulation) : 0;
}

void add_compare_command(CLI::App& app, cli::Command& command) {
  auto [cmd, c] = cli::add_command<CompareOptions>(
      app, command, "compare", "the same workload on several systems or topologies, side by side",
      compare_command);
  cmd->add_option("scenarios", c.scenarios, "scenario files")->required();
  cli::add_choice(*cmd, "--format", c.format, {"text", "markdown", "csv"},
                  "text (default), markdown or csv");
  cli::add_number(*cmd, "-j,--jobs", c.jobs,
                  "scenarios simulated at a time (default: one per processor)");
}

} // namespace trainsim
