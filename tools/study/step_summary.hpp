// A simulated step summed up once: MFU, the mean breakdown, link statistics, the bound and,
// well above it, what to blame. Part of the study library (no command line, no output
// format): what every command and the simulator's tests read a step through.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "models/closed_form.hpp"
#include "models/scenario.hpp"
#include "sim/simulation.hpp"
#include "tools/study/critical_path.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

/// One direction of one link and what it carried in the step.
struct LinkLoad {
  std::string name; ///< "leaf4->spine0"
  Bytes bytes;
  Seconds busy;           ///< bytes / bandwidth: the time the link would need at line rate
  double utilization = 0; ///< busy / step time
};

struct TierLoad {
  std::string tier;
  Bytes bytes;                   ///< over all links of the tier, both directions
  int links_used = 0;            ///< link directions that carried anything
  std::vector<LinkLoad> busiest; ///< the most loaded link directions, most loaded first
};

/// Per-tier totals and the `top` busiest link directions of each tier.
std::vector<TierLoad> summarize_links(const topo::Topology& topology,
                                      const std::vector<double>& channel_bytes, Seconds step_time,
                                      size_t top = 3);

/// A breakdown category and the sentence that defines it: what sim/gpu_actor.cpp counts in it.
struct StepSummary {
  int gpus = 0;
  long microbatches = 0;
  Seconds step_time;
  double mfu = 0; ///< model FLOP / (GPUs x peak x step time): PaLM's MFU, no recomputation
  double hfu = 0; ///< hardware FLOP (model + recomputed forward work) / (GPUs x peak x step time):
                  ///< Megatron's
  FlopPerSecond model_flop_rate;    ///< model FLOP per second per GPU (MFU x peak)
  FlopPerSecond hardware_flop_rate; ///< hardware FLOP per second per GPU (HFU x peak): Megatron's
                                    ///< "TFLOP/s per GPU"
  double tokens_per_s = 0;
  /// Mean over GPUs of each category (sim/category.hpp), in kCategories' order; they add up
  /// to the step time.
  std::vector<std::pair<sim::Category, Seconds>> breakdown;
  [[nodiscard]] Seconds time(sim::Category c) const { return breakdown[sim::index(c)].second; }
  std::vector<TierLoad> tiers; ///< link statistics, when recorded
  Seconds bound;               ///< closed-form lower bound on the step time
  std::string bound_limiting;  ///< the bound's largest term and, for a communication term, its tier
  std::string blame; ///< when the step is over kBlameRatio x the bound: blame() of this summary
  std::vector<BoundTerm> bound_terms; ///< what the bound adds up, in closed_form's order
  double slowest_gpu = 1; ///< its kernels' time over the preset's figures (models/gpu_speed.hpp)
  CriticalPath critical_path; ///< when followed (SimOptions::critical_path)
};

StepSummary summarize(const Scenario& scenario, const sim::SimResult& result);

/// Where the time above the bound went: the largest non-compute category of the breakdown
/// (the phase) and the most utilised link direction with its tier (link statistics needed).
std::string blame(const StepSummary& summary);

/// Above this ratio of simulated step to bound, a report says what made the difference.
constexpr double kBlameRatio = 1.25;

/// Records `bound` in the summary, and blame() when the step is over kBlameRatio x the bound.
void attach_bound(StepSummary& summary, const BoundResult& bound);

} // namespace trainsim
