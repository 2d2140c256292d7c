// The critical path the simulator followed (sim/critical_path.hpp), summed up: which GPUs it
// ran through and for how long, what handed it from one to the next (and how much of those
// transfers other flows on their links cost), and the links those hand-overs crossed. What `run`
// reports and `compare` sets side by side for a faulty and a healthy step.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "models/units.hpp"
#include "sim/stats.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

struct CriticalPath {
  int first_rank = -1, last_rank = -1; ///< where it starts (the step's start) and ends
  int ranks = 0;                       ///< distinct GPUs it passes through
  /// The GPUs it spends most time on (their kernels, waits and streams), most first.
  std::vector<std::pair<int, Seconds>> longest_on{};
  struct HandOvers {
    std::string via; ///< "pp", "tp", "dp", "ep", "cp", "stream"
    int count = 0;
    Seconds transfer; ///< from each sender's send to its receiver's going on
    /// Of `transfer`, what the transfers took beyond their time on idle links: other flows
    /// sharing their links (sim::PathStep::alone).
    Seconds contention;
  };
  std::vector<HandOvers> hand_overs{}; ///< by what carried them, most transfer time first
  /// The link directions the GPU-to-GPU hand-overs crossed and the transfer time on each,
  /// most first.
  std::vector<std::pair<std::string, Seconds>> links{};
  /// The GPUs a scenario's faults slow that it passes through, most time first.
  std::vector<std::pair<int, Seconds>> slow_on{};
  bool slow_gpus = false; ///< the scenario has slow GPUs (faults), on the path or not
  std::vector<sim::PathStep> steps{}; ///< the whole path, first stretch first

  [[nodiscard]] bool empty() const { return last_rank < 0; }
};

/// Sums up `steps` (SimResult::critical_path) on `topology`, keeping the `top` GPUs and links;
/// `slowdowns` by rank (models/faults.hpp: fault_slowdowns(), empty without slow GPUs) marks
/// the slow ones.
CriticalPath summarize_critical_path(const std::vector<sim::PathStep>& steps,
                                     const topo::Topology& topology,
                                     const std::vector<double>& slowdowns, size_t top = 3);

/// Its name in a report: "pp", "dp", ...
const char* via_name(sim::PathStep::Via via);

} // namespace trainsim
