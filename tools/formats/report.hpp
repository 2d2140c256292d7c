// What a run reports: the step summary (tools/study/step_summary.hpp) printed for people and
// written as result.json for programs.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/scenario.hpp"
#include "tools/study/step_summary.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

struct RunInfo {
  std::string fidelity;
  double wall_s = 0; ///< wall-clock time of the simulation (the only non-reproducible field)
  long activities = 0;
  int rail_bundle = 1; ///< GPUs per node that turn onto one another (1: none bundled)
  int replica_bundle = 1; ///< DP replicas that replica 0 stood for (1: none folded)
  int rail_leader = 0;          ///< the rail whose GPU ran for the healthy rails
  std::vector<int> own_rails{}; ///< rails that ran on their own (a degraded link of theirs)
};

void print_report(std::ostream& out, const Scenario& scenario, const topo::Topology& topology,
                  const StepSummary& summary, const RunInfo& info);

/// The critical path in one line: "rank 0 to rank 7 through 5 GPUs; longest on rank 2
/// (1.2 ms), ...; hand-overs: dp 12 (45 us, 20 us of it on shared links), ...; links:
/// leaf0->nic2 (30 us), ..."; "" when not followed.
std::string critical_path_line(const CriticalPath& path);

/// A kind of hand-over's transfer time, and what other flows on its links cost of it where
/// they cost any: "45 us" or "45 us, 20 us of it on shared links".
std::string hand_over_time(const CriticalPath::HandOvers& h);

/// result.json: deterministic for a given scenario except for "sim.wall_s".
nlohmann::ordered_json result_json(const Scenario& scenario, const StepSummary& summary,
                                   const RunInfo& info);

} // namespace trainsim
