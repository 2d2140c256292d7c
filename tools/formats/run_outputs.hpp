// What `trainsim run` writes beside result.json for people and for `trainsim report`: the
// per-link CSV, per-tier link totals, the step breakdown per pipeline stage.
#pragma once

#include <fstream>
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/scenario.hpp"
#include "sim/stats.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

/// One CSV row per link direction that carried bytes, by channel id:
/// link,from,to,tier,bandwidth_Bps,bytes,busy_s,utilization (busy = bytes / bandwidth,
/// utilization = busy / step time).
void write_links_csv(std::ostream& out, const topo::Topology& topology,
                     const std::vector<double>& channel_bytes, Seconds step_time);

/// Per tier: bytes, link directions used, busy time summed over them, mean and max utilization.
nlohmann::ordered_json link_tiers_json(const topo::Topology& topology,
                                       const std::vector<double>& channel_bytes, Seconds step_time);

/// Per pipeline stage, the mean over its GPUs of each category (seconds); the categories add
/// up to the stage's mean finish time, idle fills the rest of the step.
nlohmann::ordered_json stage_breakdown_json(const Scenario& scenario, const sim::SimResult& result);

} // namespace trainsim
