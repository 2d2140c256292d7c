// What a run reports: the step summary derived once from the simulation, printed for people
// and written as result.json for programs.
#pragma once

#include <map>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/scenario.hpp"
#include "sim/simulation.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

struct StepSummary {
  int gpus = 0;
  long microbatches = 0;
  Seconds step_time;
  double mfu = 0;          ///< model FLOP / (GPUs x peak x step time)
  double tokens_per_s = 0;
  /// Mean over GPUs of each category; the categories add up to the step time.
  std::vector<std::pair<std::string, Seconds>> breakdown;
  Seconds bound;             ///< closed-form lower bound on the step time
  std::string bound_limiting;///< the bound's largest term
};

StepSummary summarize(const Scenario& scenario, const sim::SimResult& result);

struct RunInfo {
  std::string fidelity;
  double wall_s = 0; ///< wall-clock time of the simulation (the only non-reproducible field)
  long activities = 0;
};

void print_report(std::ostream& out, const Scenario& scenario, const topo::Topology& topology,
                  const StepSummary& summary, const RunInfo& info);

/// result.json: deterministic for a given scenario except for "sim.wall_s".
nlohmann::ordered_json result_json(const Scenario& scenario, const StepSummary& summary, const RunInfo& info);

} // namespace trainsim
