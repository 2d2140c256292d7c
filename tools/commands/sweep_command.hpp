// `trainsim sweep SCENARIO --set key=v1,v2 ...`: every combination of the --set values (with
// --zip: the i-th values of every --set together, for keys that must change together, such as
// the node count and dp), simulated in parallel local processes, one CSV row per variant in
// grid order. `--shard I/N`
// runs every N-th variant starting at I, so N machines (a Slurm job array, GNU parallel) can
// share a grid; `trainsim sweep merge` joins their CSVs into the unsharded file.
#pragma once

#include "tools/commands/cli_support.hpp"

#include <string>
#include <vector>

namespace trainsim {

struct SweepOptions {
  std::string scenario;
  std::vector<std::string> sets; ///< "execution.dp=2,4": a dotted scenario key and its values
  bool zip = false;              ///< variant i takes the i-th value of every --set; else the grid
  int jobs = 0;                  ///< processes at a time; 0: one per processor
  std::string shard;             ///< "I/N", 0 <= I < N; empty: the whole grid
  std::string out;               ///< CSV file; empty: standard output
  bool force_memory = false;     ///< price plans that do not fit in the GPU's memory
};

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out; ///< empty: standard output
};

/// Returns 0, or ExitCode::simulation when some variant failed (its row's error column says why).
int sweep_command(const SweepOptions& options);
int sweep_merge_command(const MergeOptions& options);

/// One --set: the key and its values.
struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};
SweepAxis parse_set(const std::string& set);

/// The variants' values, one per axis: the grid, first axis outermost, or (`zip`) the i-th
/// value of every axis, which then must all have as many values (else InputError).
std::vector<std::vector<std::string>> sweep_points(const std::vector<SweepAxis>& axes, bool zip);

/// The variant indices of shard "I/N" out of `count`: I, I + N, I + 2N, ...
std::vector<size_t> shard_indices(const std::string& shard, size_t count);

/// Registers `sweep` and its options on the command line; parsing it sets `command`.
void add_sweep_command(CLI::App& app, cli::Command& command);

} // namespace trainsim
