#include "tools/commands/sweep_command.hpp"
#include <memory>

#include <CLI/CLI.hpp>

#include "tools/commands/cli_support.hpp"
#include "tools/formats/text.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "models/error.hpp"
#include "models/input_file.hpp"
#include "sim/log.hpp"
#include "tools/io/output_file.hpp"
#include "tools/formats/run_outputs.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tools/study/variant_runner.hpp"

namespace trainsim {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, sep);) out.push_back(part);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

struct Variant {
  std::vector<std::string> values; ///< one per axis
  ScenarioTree tree;
  std::string refused; ///< the loader's one line when it refused the variant
};

// The grid, first --set outermost, so rows read like nested loops.
std::vector<std::vector<std::string>> grid(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::string>> rows{{}};
  for (const SweepAxis& axis : axes) {
    std::vector<std::vector<std::string>> next;
    for (const auto& row : rows)
      for (const auto& v : axis.values) {
        next.push_back(row);
        next.back().push_back(v);
      }
    rows = std::move(next);
  }
  return rows;
}

std::vector<std::vector<std::string>> zipped(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::string>> rows(axes.empty() ? 0 : axes.front().values.size());
  for (const SweepAxis& axis : axes) {
    if (axis.values.size() != rows.size())
      throw InputError("command line",
                       "--zip needs as many values in every --set: " + axes.front().key + " has " +
                           std::to_string(rows.size()) + ", " + axis.key + " has " +
                           std::to_string(axis.values.size()));
    for (size_t i = 0; i < rows.size(); ++i) rows[i].push_back(axis.values[i]);
  }
  return rows;
}

ScenarioTree read_tree(const std::string& path) {
  return ScenarioTree::parse(read_input_file(path, "scenario file", kMaxScenarioBytes), path);
}

std::string set_text(const std::vector<SweepAxis>& axes, const std::vector<std::string>& values) {
  std::string text;
  for (size_t i = 0; i < axes.size(); ++i)
    text.append(i ? " --set " : "--set ").append(axes[i].key).append("=").append(values[i]);
  return text;
}

// The variant's tree, checked by loading it; what the loader refuses (a rule, a plan that
// does not fit) is kept as the variant's row, naming the --set that caused it, and the sweep
// goes on with the others.
Variant make_variant(const ScenarioTree& base, const std::vector<SweepAxis>& axes,
                     const std::vector<std::string>& values, const LoadOptions& options) {
  Variant v{values, base, ""};
  try {
    for (size_t i = 0; i < axes.size(); ++i) v.tree.set(axes[i].key, values[i]);
    (void)v.tree.load(options);
  } catch (const InternalError&) {
    throw;
  } catch (const Error& e) {
    v.refused = set_text(axes, values) + ": " + e.what();
  }
  return v;
}

std::string header(const std::vector<SweepAxis>& axes) {
  std::string h = "variant";
  for (const auto& a : axes) h.append(",").append(csv_field(a.key)); // append(): GCC 12 -Wrestrict
  return h + ",gpus,step_time_s,mfu,tokens_per_s,tp_comm_s,pp_comm_s,dp_comm_s,ep_comm_s,"
             "cp_comm_s,bubble_s,busiest_tier,busiest_utilization,bound_s,bound_limiting,status,"
             "error";
}

std::string row(size_t index, const Variant& v, const VariantResult& r) {
  std::string line = std::to_string(index);
  for (const auto& value : v.values) line.append(",").append(csv_field(value));
  for (double x : {static_cast<double>(r.gpus), r.step_time_s, r.mfu, r.tokens_per_s, r.tp_comm_s,
                   r.pp_comm_s, r.dp_comm_s, r.ep_comm_s, r.cp_comm_s, r.bubble_s})
    line.append(",").append(csv_number(x));
  return line + "," + r.busiest_tier + "," + csv_number(r.busiest_utilization) + "," +
         csv_number(r.bound_s) + "," + csv_field(r.bound_limiting) + "," + r.status() + "," +
         csv_field(r.error);
}

// Writes to the file (opened before anything runs) or to standard output.
struct Sink {
  std::string path;
  std::ofstream file;
  explicit Sink(const std::string& p) : path(p) {
    if (!p.empty()) file = open_output(p, "-o");
  }
  std::ostream& stream() { return path.empty() ? std::cout : file; }
  void close() {
    if (!path.empty()) close_output(file, path);
  }
};

[[noreturn]] void bad_merge(const std::string& file, const std::string& problem) {
  throw InputError(file, problem);
}

} // namespace

SweepAxis parse_set(const std::string& set) {
  auto eq = set.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == set.size())
    throw InputError("command line", "--set", set,
                     "expected KEY=V1,V2,... with a dotted scenario key, e.g. execution.dp=2,4");
  SweepAxis axis{set.substr(0, eq), split(set.substr(eq + 1), ',')};
  for (const auto& v : axis.values)
    if (v.empty()) throw InputError("command line", "--set", set, "empty value");
  return axis;
}

std::vector<std::vector<std::string>> sweep_points(const std::vector<SweepAxis>& axes, bool zip) {
  return zip && !axes.empty() ? zipped(axes) : grid(axes); // no --set: the scenario itself
}

std::vector<size_t> shard_indices(const std::string& shard, size_t count) {
  long i = -1, n = -1;
  char tail = 0;
  if (!shard.empty() &&
      (std::sscanf(shard.c_str(), "%ld/%ld%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n))
    throw InputError("command line", "--shard", shard, "expected I/N with 0 <= I < N, e.g. 0/4");
  if (shard.empty()) i = 0, n = 1;
  std::vector<size_t> out;
  for (auto k = static_cast<size_t>(i); k < count; k += static_cast<size_t>(n)) out.push_back(k);
  return out;
}

int sweep_command(const SweepOptions& o) {
  std::vector<SweepAxis> axes;
  for (const auto& s : o.sets) axes.push_back(parse_set(s));
  auto points = sweep_points(axes, o.zip);
  ScenarioTree base = read_tree(o.scenario);
  std::vector<size_t> mine = shard_indices(o.shard, points.size());
  Sink sink(o.out);
  LoadOptions load;
  load.force_memory = o.force_memory;
  std::vector<Variant> variants;
  for (size_t k : mine)
    variants.push_back(make_variant(base, axes, points[k], load)); // all checked before any runs
  logger("trainsim.sweep")->info("{} of {} variants in this shard", variants.size(), points.size());
  // Every one refused (a misspelt key, as often as not): nothing to tabulate, say why once.
  if (!variants.empty() && std::all_of(variants.begin(), variants.end(),
                                       [](const Variant& v) { return !v.refused.empty(); }))
    throw InputError("command line", variants.front().refused);
  // Only the loadable variants run, each in a process of its own; a refused one's row is its
  // reason.
  std::vector<std::function<VariantResult()>> tasks;
  for (const Variant& v : variants)
    if (v.refused.empty())
      tasks.push_back([&v, &load] {
        // The child loads the variant again; its input warnings (--force-memory's) were
        // printed when make_variant checked it.
        logger("trainsim.input")->set_level(spdlog::level::err);
        return run_variant(v.tree.load(load));
      });
  std::vector<VariantResult> ran =
      run_in_processes(tasks, o.jobs > 0 ? o.jobs : default_jobs(), "sweep");
  std::vector<VariantResult> results;
  for (size_t i = 0, next = 0; i < variants.size(); ++i)
    results.push_back(variants[i].refused.empty() ? ran[next++]
                                                  : refused_variant(variants[i].refused));
  sink.stream() << header(axes) << "\n";
  for (size_t i = 0; i < variants.size(); ++i)
    sink.stream() << row(mine[i], variants[i], results[i]) << "\n";
  sink.close();
  return table_exit_code(results);
}

int sweep_merge_command(const MergeOptions& o) {
  if (o.inputs.empty()) throw InputError("command line", "sweep merge needs at least one CSV file");
  std::string head;
  std::map<long, std::string> rows; // by variant index: the merged file is in grid order
  for (const std::string& file : o.inputs) {
    std::ifstream in(file);
    if (!in) bad_merge(file, "cannot read the file");
    std::string line;
    if (!std::getline(in, line) || line.rfind("variant,", 0) != 0)
      bad_merge(file, "not a trainsim sweep CSV (no 'variant,...' header)");
    if (!head.empty() && line != head)
      bad_merge(file, "its columns differ from " + o.inputs.front() + "'s: not the same sweep");
    head = line;
    for (int n = 2; std::getline(in, line); ++n) {
      char* end = nullptr;
      long index = std::strtol(line.c_str(), &end, 10);
      if (end == line.c_str() || *end != ',')
        bad_merge(file, "line " + std::to_string(n) + " does not start with a variant number");
      if (!rows.emplace(index, line).second)
        bad_merge(file,
                  "variant " + std::to_string(index) + " appears twice (overlapping shards?)");
    }
  }
  if (!rows.empty() && static_cast<size_t>(rows.rbegin()->first + 1) != rows.size())
    logger("trainsim.sweep")
        ->warn("merged {} variants, but the highest is {}: some shards are missing", rows.size(),
               rows.rbegin()->first);
  Sink sink(o.out);
  sink.stream() << head << "\n";
  for (const auto& [index, line] : rows) sink.stream() << line << "\n";
  sink.close();
  return 0;
}

void add_sweep_command(CLI::App& app, cli::Command& command) {
  auto sweep_options = std::make_shared<SweepOptions>(); // the callbacks keep it alive
  auto& s = *sweep_options;
  auto* cmd = app.add_subcommand(
      "sweep",
      "every combination of --set values (or, with --zip, their pairs), one CSV row per variant");
  cmd->add_option("scenario", s.scenario, "scenario file");
  cmd->add_option("--set", s.sets,
                  "KEY=V1,V2,...: a dotted scenario key and its values (repeat for a grid)");
  cmd->add_flag("--zip", s.zip,
                "pair the i-th values of every --set (lists of one length) instead of the grid");
  cli::add_number(*cmd, "-j,--jobs", s.jobs,
                  "variants simulated at a time (default: one per processor)");
  cmd->add_option("--shard", s.shard, "I/N: run only variants I, I+N, I+2N, ... (0 <= I < N)");
  cmd->add_option("-o,--out", s.out, "CSV file (default: standard output)");
  cmd->add_flag("--force-memory", s.force_memory,
                "simulate variants whose plan does not fit in the GPU's memory (with a warning)");
  auto [merge, m] = cli::add_command<MergeOptions>(
      *cmd, command, "merge", "join the CSVs of the shards of one sweep, in grid order",
      sweep_merge_command);
  merge->add_option("inputs", m.inputs, "shard CSV files")->required();
  merge->add_option("-o,--out", m.out, "CSV file (default: standard output)");
  cmd->callback([cmd, sweep_options, &command] {
    if (cmd->got_subcommand("merge")) return;
    if (sweep_options->scenario.empty()) throw CLI::RequiredError("scenario");
    command = [sweep_options] { return sweep_command(*sweep_options); };
  });
}

} // namespace trainsim
