// What a simulation measures. Per rank, the categories partition the step exactly:
// compute + tp + pp + dp + ep + bubble + idle == step_time for every rank.
#pragma once

#include <cstdint>
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

/// What a traced rank was doing from `start` to `end` (simulated seconds).
struct TraceEvent {
  enum class Kind : std::uint8_t { compute, tp, dp, ep, pp_transfer, bubble, pp_send_wait, dp_background };
  Kind kind = Kind::compute;
  bool forward = true;
  std::int16_t chunk = 0;
  std::int32_t rank = 0;
  std::int32_t microbatch = -1; ///< -1 outside pipeline passes (e.g. the gradient sync)
  std::int32_t layer = -1;      ///< -1 when the op covers all of the pass's layers (fast mode)
  std::int32_t count = 1;       ///< collectives folded into this event
  double start = 0, end = 0;
  double bytes = 0;             ///< per collective, or per pipeline message
};

struct SimResult {
  Seconds step_time;
  std::vector<RankStats> ranks;
  Counters counters;
  /// Bytes carried by each link direction, by Hop::channel(); empty unless link statistics
  /// were asked for.
  std::vector<double> channel_bytes;
  /// Events of the traced ranks, in the order they ended; empty unless tracing was asked for.
  std::vector<TraceEvent> trace;
};

} // namespace trainsim::sim
