// What a long synchronous run delivers when its components fail (docs/faults.md, "Goodput"):
// every failure stops the whole job, which restarts from its last checkpoint. The expected
// goodput (useful training time over wall time) by Young and Daly's first-order model and by
// Monte-Carlo over exponential failures, and the checkpoint interval that maximizes it.
#pragma once

#include <cstdint>
#include <vector>

#include "models/units.hpp"

namespace trainsim {

/// Meta's Llama 3 405B pre-training on 16,384 H100s ("The Llama 3 Herd of Models", 2024,
/// arXiv:2407.21783, section 3.3.4 and its table of root causes): 419 unexpected
/// interruptions in a 54-day snapshot. As a rate per GPU-hour, every interruption charged
/// to the job's GPUs alike: 419 / (16,384 x 54 x 24) = 1.97e-5, a job MTBF of 3.09 h at
/// 16,384 GPUs ("one about every three hours").
constexpr double kLlama3InterruptionsPerGpuHour = 419.0 / (16384.0 * 54.0 * 24.0);

struct GoodputInputs {
  int gpus = 1;
  double failures_per_gpu_hour = kLlama3InterruptionsPerGpuHour;
  Seconds checkpoint{}; ///< the job's time stopped to write one checkpoint
  Seconds restart{};    ///< from a failure to training again: relaunch and restore
  [[nodiscard]] Seconds mtbf() const; ///< the job's: 1 / (gpus x rate)
};

/// Young's optimum interval, sqrt(2 C M) for a checkpoint of C and a job MTBF of M (Young
/// 1974; Daly 2006's first-order form).
Seconds young_daly_interval(const GoodputInputs& in);

/// The first-order expected goodput of checkpointing every `interval` of useful work: each
/// period of tau + C loses C to the checkpoint, and each failure (one per M of wall time)
/// loses the restart R and on average half a period of work, so
/// goodput = tau / (tau + C) x (1 - (R + (tau + C) / 2) / M). Valid where C, R and tau are
/// small against M.
double first_order_goodput(const GoodputInputs& in, Seconds interval);

struct GoodputRun {
  Seconds wall;     ///< simulated
  Seconds useful;   ///< training time kept (checkpointed or at the end)
  int failures = 0;
  int checkpoints = 0;
  [[nodiscard]] double goodput() const { return useful / wall; }
};

/// One run of `wall` time by Monte-Carlo: failures arrive as a Poisson process of rate
/// 1 / M (seeded, deterministic; our own mapping of the generator's words to exponential
/// times); between failures the job trains and checkpoints every `interval` of useful work
/// (a checkpoint interrupted by a failure is lost); after one it restarts (R) and resumes from
/// its last checkpoint.
GoodputRun monte_carlo_goodput(const GoodputInputs& in, Seconds interval, Seconds wall,
                               std::uint64_t seed);

} // namespace trainsim
