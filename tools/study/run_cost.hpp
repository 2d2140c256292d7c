// What a simulation will cost before it starts, from the scenario's shape: the ops its GPU
// actors run (counted by models/step_program.hpp's program_size) and the CPU time that
// takes, between the cheapest and the dearest op measured. `run` warns when a step will take
// minutes; validation weighs its progress by it, so a section of unequal runs has a fair ETA.
#pragma once

#include <optional>

#include "models/scenario.hpp"
#include "models/units.hpp"

namespace trainsim {

struct RunCost {
  double actors = 0;    ///< GPU actors that run a program: GPUs / bundled rails / folded replicas
  double actor_ops = 0; ///< ops all of them run, estimated
  Seconds cpu_low, cpu_high; ///< CPU time at the cheapest and the dearest op measured
};

/// CPU time per actor-op, measured (`trainsim run --log-level debug` prints the estimate; user
/// + system time from /usr/bin/time, 2026-12-04): the default scenario at global_batch 32768
/// (64 GPUs, 8,192 microbatches per pipeline), 4.19M ops in 8.8 s, 2.1 us each, the cheapest;
/// Narayanan 2021's 1T run (3,072 GPUs), 3.93M ops in 9.7 s, 2.5 us; Llama 3 405B on 8,192
/// GPUs, 2.71M in 16.9 s, 6.2 us; the 16k reference step (rails bundled, each op a node's
/// flows), 276k in 4.2 s, 15 us, the dearest.
inline constexpr double kCheapestOpSeconds = 2.0e-6;
inline constexpr double kDearestOpSeconds = 15e-6;

/// CPU time per fine-mode round and rank (estimate_fine_cost): the median of eight of
/// validate's random scenarios of 0.3M to 0.65M rounds run in fine mode (2026-12-05, CPU time
/// of the simulation's process): 0.5 to 42 us per round, median 3.3. The spread is the
/// fabric's: a round's cost grows with the links its flows share (a torus's long routes
/// cost the most), which a count of rounds cannot see.
inline constexpr double kFineRoundSeconds = 3.3e-6;

/// The cost of one step of `scenario`; `rails`, `replicas` and `own_rails` as
/// sim::rail_bundle(), sim::replica_bundle() and sim::own_rails() give them for the run (a
/// node then runs 1 + own_rails of its GPUs); `fine`: fine mode's unfolded programs. Fast
/// mode's collectives marked `in_rounds` count their rounds (kMaxRoundsInRounds at most), their
/// channels from `gpus_per_node`: the built graph's where it is at hand, else the topology
/// spec's (which an imported topology leaves 0).
RunCost estimate_run_cost(const Scenario& scenario, bool fine, int rails = 1, int replicas = 1,
                          std::optional<int> gpus_per_node = std::nullopt, int own_rails = 0);

/// Fine mode's cost of one step of `scenario` on nodes of `gpus_per_node` GPUs, every GPU its
/// own actor. Fine mode runs each round of a ring collective as its own transfers on each of
/// its channels, so its cost follows the rounds, not the ops: `actor_ops` counts each kernel
/// and transfer once and each collective by its rounds (2(n-1) for an all-reduce over n
/// ranks, n-1 otherwise) times its channels.
RunCost estimate_fine_cost(const Scenario& scenario, int gpus_per_node);

/// Warns (one line, naming the file) when the step will take more than `at_least` of CPU
/// time even at the cheapest op, with what drives its cost and what makes it cheaper.
void warn_if_long(const Scenario& scenario, const RunCost& cost, Seconds at_least = Seconds(120.0));

} // namespace trainsim
