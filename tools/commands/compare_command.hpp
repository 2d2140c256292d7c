// `trainsim compare A.yaml B.yaml ...`: the same workload on several systems or topologies,
// simulated side by side (fast mode, in parallel processes), as a text, markdown or CSV table.
#pragma once

#include "tools/commands/cli_support.hpp"

#include <ostream>
#include <string>
#include <vector>

#include "tools/study/variant_runner.hpp"

namespace trainsim {

struct CompareOptions {
  std::vector<std::string> scenarios;
  std::string format = "text"; ///< text, markdown or csv
  int jobs = 0;                ///< processes at a time; 0: one per processor
  bool force_memory = false;   ///< price plans that do not fit in the GPU's memory
};

/// Returns the exit code (table_exit_code): every scenario has its row, one the loader refuses
/// (a rule, a plan that does not fit) saying why, and the others are simulated.
int compare_command(const CompareOptions& options);

/// What one compared scenario was (tools/io/provenance.hpp).
struct ComparedInput {
  std::string name;     ///< the file's stem
  std::string hardware; ///< hardware_line(): GPU preset, generator and its parameters
  std::string hash;     ///< input_hash() of the file
};

/// One row per scenario, columns: scenario, GPUs, step time, MFU, exposed TP/PP/DP/EP
/// communication, bubble, busiest tier (its busiest link's utilization), bound, sim/bound;
/// then what each scenario was and the trainsim version (CSV: as columns of the same rows).
void print_comparison(std::ostream& out, const std::vector<ComparedInput>& inputs,
                      const std::vector<VariantResult>& results, const std::string& format);

/// Registers `compare` and its options on the command line; parsing it sets `command`.
void add_compare_command(CLI::App& app, cli::Command& command);

} // namespace trainsim
