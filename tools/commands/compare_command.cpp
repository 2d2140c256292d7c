#include "tools/commands/compare_command.hpp"
#include <memory>

#include <CLI/CLI.hpp>

#include "tools/commands/cli_support.hpp"
#include "tools/formats/text.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <exception>
#include <optional>

#include "models/error.hpp"
#include "models/input_file.hpp"
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
            "bound_s",    "sim_over_bound", "status",       "error",
            "hardware",   "input_hash",     "trainsim"};
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
          r.status(),
          r.error};
}

// Below the table (text, markdown): what each scenario was, one row each.
std::vector<Row> input_rows(const std::vector<ComparedInput>& inputs) {
  std::vector<Row> rows{{"scenario", "simulated (trainsim " + version() + ")", "input"}};
  for (const ComparedInput& in : inputs) rows.push_back({in.name, in.hardware, in.hash});
  return rows;
}

Row text_row(const std::string& name, const VariantResult& r) {
  if (!r.error.empty()) return {name, r.status() + ": " + r.error};
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

// The mean per GPU of each phase the table shows, by name.
std::vector<std::pair<std::string, double>> phases(const VariantResult& r) {
  return {{"tp_comm", r.tp_comm_s}, {"pp_comm", r.pp_comm_s}, {"dp_comm", r.dp_comm_s},
          {"ep_comm", r.ep_comm_s}, {"cp_comm", r.cp_comm_s}, {"bubble", r.bubble_s}};
}

// Two scenarios, say a healthy and a faulty one: what the second costs against the first, and
// where each step ends and which links each keeps busiest.
void print_difference(std::ostream& out, const std::vector<ComparedInput>& inputs,
                      const std::vector<VariantResult>& results) {
  const VariantResult &a = results[0], &b = results[1];
  double grew = b.step_time_s - a.step_time_s;
  out << "\n" << inputs[1].name << " against " << inputs[0].name << ": step "
      << (grew >= 0 ? "+" : "-") << format(Seconds(std::abs(grew))) << " ("
      << formatted("%+.2f %%", 100 * grew / a.step_time_s) << ")";
  std::vector<std::pair<std::string, double>> pa = phases(a), pb = phases(b);
  size_t most = 0;
  for (size_t i = 1; i < pa.size(); ++i)
    if (pb[i].second - pa[i].second > pb[most].second - pa[most].second) most = i;
  if (pb[most].second > pa[most].second)
    out << "; the phase that grew most: " << pa[most].first << ", "
        << format(Seconds(pa[most].second)) << " to " << format(Seconds(pb[most].second))
        << " (mean per GPU)";
  out << "\n";
  for (size_t i = 0; i < 2; ++i) {
    out << "  " << inputs[i].name << ": ends with rank";
    for (auto [rank, finish] : results[i].last_ranks)
      out << " " << rank << " (" << format(Seconds(finish)) << ")";
    out << "; busiest links:";
    for (const auto& [name, busy] : results[i].busiest_links)
      out << " " << name << " " << format(Seconds(busy));
    out << "\n";
    if (!results[i].critical_path.empty())
      out << "    critical path: " << results[i].critical_path << "\n";
  }
}

int compare_command(const CompareOptions& o) {
  if (o.scenarios.empty())
    throw InputError("command line", "compare needs at least one scenario file");
  // Loaded here, before anything runs; the children inherit them. One the loader refuses keeps
  // its row, saying why.
  LoadOptions load;
  load.force_memory = o.force_memory;
  std::vector<std::optional<LoadedScenario>> loaded;
  std::vector<std::string> refusals;
  std::exception_ptr first_refusal;
  std::vector<ComparedInput> inputs;
  for (const std::string& path : o.scenarios) {
    std::string name = std::filesystem::path(path).stem().string();
    // A file that cannot be read is the command line's mistake, not a scenario's row.
    std::string text = read_input_file(path, "scenario file", kMaxScenarioBytes);
    try {
      loaded.emplace_back(parse_scenario(text, path, load));
      const Scenario& s = loaded.back()->scenario;
      inputs.push_back({name, hardware_line(s), s.input_hash});
      refusals.emplace_back();
    } catch (const InternalError&) {
      throw;
    } catch (const Error& e) {
      loaded.emplace_back();
      inputs.push_back({name, "-", "-"});
      refusals.emplace_back(e.what());
      if (!first_refusal) first_refusal = std::current_exception();
    }
  }
  // Every one refused: nothing to compare, say why once.
  if (std::none_of(loaded.begin(), loaded.end(), [](const auto& l) { return l.has_value(); }))
    std::rethrow_exception(first_refusal);
  // Only the loaded ones run, each in a process of its own; a refused one's row is its reason.
  // Two side by side: the text says what the second costs, its critical path included.
  bool paths = o.format == "text" && loaded.size() == 2;
  std::vector<std::function<VariantResult()>> tasks;
  for (const auto& l : loaded)
    if (l) tasks.push_back([&l, paths] { return run_variant(*l, paths); });
  std::vector<VariantResult> ran = run_in_processes(tasks, o.jobs > 0 ? o.jobs : default_jobs(), "compare");
  std::vector<VariantResult> results;
  for (size_t i = 0, next = 0; i < loaded.size(); ++i)
    results.push_back(loaded[i] ? ran[next++] : refused_variant(refusals[i]));
  print_comparison(std::cout, inputs, results, o.format);
  if (o.format == "text" && results.size() == 2 && results[0].status() == "ok" &&
      results[1].status() == "ok")
    print_difference(std::cout, inputs, results);
  return table_exit_code(results);
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
  cmd->add_flag("--force-memory", c.force_memory,
                "simulate scenarios whose plan does not fit in the GPU's memory (with a warning)");
}

} // namespace trainsim
