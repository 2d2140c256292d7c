// What makes a scenario valid, as a function over the Scenario value: the rules across keys
// (docs/scenario-format.md, "Checks across keys"). The YAML loader only parses text into a
// Scenario and then calls check_scenario(); a scenario built in code (validation, the
// frontier, tests, sweeps) passes the same rules. Each broken rule is one InputError line
// naming the scenario's file, the key and its value.
#pragma once

#include <cstdint>
#include <string>

#include <optional>

#include "models/scenario.hpp"

namespace trainsim {

/// The most GPUs a scenario or a topology may describe.
inline constexpr long kMaxGpus = 10'000'000;

/// tp_overlap_splits beyond this only add launches and latencies (and program ops).
inline constexpr int kMaxTpOverlapSplits = 64;

/// The schedule and the programs count a pipeline's passes in ints and hold one entry per
/// pass; beyond this they would overflow (2^32 sequences over dp 1) long before they fit in
/// memory. The memory guard refuses far fewer, on most machines, with its estimate.
inline constexpr double kMaxPipelinePasses = 1e8;

/// Every rule, in the order a reader meets the keys: the model's, the execution's, then,
/// when the topology's GPU count is known, dp x tp x pp against it, then what depends on
/// the model and the execution together (pp within the layers, divisibility, the most
/// loaded GPU's memory within HBM).
/// With `Memory::price_anyway` the last rule, the memory within HBM, is left to the caller
/// (over_capacity()), which prices such a plan with a warning.
enum class Memory : std::uint8_t { must_fit, price_anyway };
void check_scenario(const Scenario& scenario, std::optional<double> topology_gpus,
                    Memory memory = Memory::must_fit);

/// Throws the InputError of a broken rule: the scenario's file, the key, its value and why.
/// The rules of models/ (here, moe_rules, schedule_rules) all refuse through it.
[[noreturn]] void broken_rule(const Scenario& scenario, const std::string& key,
                              const std::string& value, const std::string& problem);

/// What the memory rule says of `scenario` (the most loaded GPU's needs against HBM, by part),
/// or "" when it fits.
std::string over_capacity(const Scenario& scenario);

/// dp x tp x pp equals the GPUs of the topology (computed without overflow: each degree may
/// be as large as an int). check_scenario() includes it; the loader repeats it once the
/// graph of an imported file is known.
void check_gpu_total(const Scenario& scenario, double topology_gpus);

} // namespace trainsim
