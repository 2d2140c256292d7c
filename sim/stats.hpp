// What a simulation measures. Per rank, the categories partition the step exactly:
// compute + tp + pp + dp + ep + bubble + idle == step_time for every rank.
#pragma once

#include <string>
#include <vector>

#include "models/units.hpp"

namespace trainsim::sim {

struct RankStats {
  Seconds compute; ///< kernels
  Seconds tp;      ///< blocked in tensor-parallel collectives
  Seconds pp;      ///< blocked on pipeline transfers while they were moving data
  Seconds bubble;  ///< blocked on a pipeline receive before its data started moving
  Seconds dp;      ///< blocked in data-parallel gradient (and ZeRO parameter) collectives
  Seconds ep;      ///< blocked in expert-parallel all-to-alls
  Seconds finish;  ///< when this rank finished its step
};

struct Counters {
  long execs = 0;
  long comms = 0;
  [[nodiscard]] long activities() const { return execs + comms; }
};

struct SimResult {
  Seconds step_time;
  std::vector<RankStats> ranks;
  Counters counters;
  /// Bytes carried by each link direction, by Hop::channel(); empty unless link statistics
  /// were asked for.
  std::vector<double> channel_bytes;
};

} // namespace trainsim::sim
