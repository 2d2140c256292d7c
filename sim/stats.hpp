// What a simulation measures. Per rank, the categories (sim/category.hpp) partition the step
// exactly: their sum, idle included, is the step time for every rank.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/units.hpp"
#include "sim/category.hpp"

namespace trainsim::sim {

struct RankStats {
  /// Simulated time charged to each category (sim/category.hpp); idle stays zero here: it
  /// is the step's end minus `finish`, known only once every rank has finished.
  std::array<Seconds, kCategories.size()> time{};
  Seconds finish; ///< when this rank finished its step

  Seconds& operator[](Category c) { return time[index(c)]; }
  Seconds operator[](Category c) const { return time[index(c)]; }
};

/// The mean over `ranks` of each category, idle included (`step` minus the mean finish), in
/// kCategories' order: a breakdown that adds up to `step`.
std::vector<std::pair<Category, Seconds>>
mean_breakdown(std::vector<RankStats>::const_iterator begin,
               std::vector<RankStats>::const_iterator end, Seconds step);

struct Counters {
  long execs = 0;
  long comms = 0;
  [[nodiscard]] long activities() const { return execs + comms; }
};

/// What a traced rank was doing from `start` to `end` (simulated seconds).
struct TraceEvent {
  enum class Kind : std::uint8_t {
    compute,
    tp,
    dp,
    ep,
    cp,
    pp_transfer,
    bubble,
    pp_send_wait,
    dp_background,
    tp_background, ///< a TP collective overlapped with the kernels (tp_overlap)
    ep_background, ///< an expert all-to-all beside another pass's kernels (ep_overlap)
    host_copy,     ///< activations copied to or from the host (offload_layers), beside the kernels
    offload_wait   ///< blocked until such copies end
  };
  Kind kind = Kind::compute;
  bool forward = true;
  std::int16_t chunk = 0;
  std::int32_t rank = 0;
  std::int32_t microbatch = -1; ///< -1 outside pipeline passes (e.g. the gradient sync)
  std::int32_t layer = -1;      ///< -1 when the op covers all of the pass's layers (fast mode)
  std::int32_t count = 1;       ///< collectives folded into this event
  double start = 0, end = 0;
  double bytes = 0; ///< per collective, or per pipeline message
};

/// One stretch of a step's critical path (sim/critical_path.hpp): what `rank` did from `start`
/// to `end`, after `from_rank`'s message (or the rank's own stream) handed over to it.
struct PathStep {
  enum class Via : std::uint8_t { start, pp, tp, dp, ep, cp, stream };
  std::int32_t rank = 0;
  std::int32_t from_rank = -1; ///< -1: the step's start
  Via via = Via::start;
  bool stream = false; ///< on one of the rank's collective streams, not its kernels' queue
  /// The hand-over's data went from `rank` to `from_rank`: a receiver that posted late
  /// released its sender's send.
  bool reverse = false;
  double handed = 0; ///< when the hand-over began: the transfer ran from here to `start`
  double start = 0, end = 0;
  /// What the hand-over's transfer would have taken on idle links: its route's latency plus
  /// its bytes at the route's narrowest link (or the flow's own rate cap). The rest of
  /// start - handed is other flows sharing its links. Negative: no transfer (a barrier, a
  /// stream, the start).
  double alone = -1;
};

struct SimResult {
  Seconds step_time;
  /// GPUs per node that turn onto one another (rail bundling, sim/rail_bundle.hpp); 1: every
  /// GPU's own flows were simulated.
  int rail_bundle = 1;
  int rail_leader = 0;        ///< the rail whose GPU ran for the healthy rails
  std::vector<int> own_rails; ///< rails whose GPUs ran on their own (a degraded link of theirs)
  /// DP replicas that replica 0 stood for (replica bundling, sim/replica_bundle.hpp); 1: all ran.
  int replica_bundle = 1;
  std::vector<RankStats> ranks;
  Counters counters;
  /// Bytes carried by each link direction, by Hop::channel(); empty unless link statistics
  /// were asked for.
  std::vector<double> channel_bytes;
  /// Events of the traced ranks, in the order they ended; empty unless tracing was asked for.
  std::vector<TraceEvent> trace;
  /// The step's critical path, first stretch first; empty unless asked for
  /// (SimOptions::critical_path).
  std::vector<PathStep> critical_path;
};

} // namespace trainsim::sim
