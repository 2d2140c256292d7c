// `trainsim run --trace FILE.json`: the traced ranks' events as Chrome trace-event JSON,
// which Perfetto (ui.perfetto.dev) and chrome://tracing open. One process per pipeline
// stage, one thread (track) per GPU; background gradient collectives, which overlap the
// GPU's own work, go on a second track of that GPU. Timestamps are microseconds, printed
// from whole nanoseconds so the same run gives a byte-identical file.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "models/scenario.hpp"
#include "sim/stats.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

/// The ranks a selection names, sorted and unique. Syntax: comma-separated terms, each
/// "all", "pipeline:K" (every stage of the K-th (tp, dp) pipeline, K = tp + TP x dp),
/// "node:N", "stage:S", a rank "R" or a range "A-B". Throws InputError naming `flag`.
std::vector<int> parse_rank_selection(const std::string& selection, const Scenario& scenario,
                                      const topo::Topology& topology,
                                      const std::string& flag = "--trace-ranks");

/// Estimated trace bytes per traced rank, from the size of the stage programs.
double estimated_trace_bytes_per_rank(const Scenario& scenario, bool fine);

/// Every rank if the whole trace stays under `budget_bytes`, else pipeline 0 (every stage of
/// tp 0, dp 0), else rank 0 alone.
std::vector<int> default_trace_ranks(const Scenario& scenario, bool fine,
                                     double budget_bytes = 100e6);

/// Writes the trace-event JSON of `result.trace`.
void write_trace(std::ostream& out, const Scenario& scenario, const sim::SimResult& result);

/// The event name shown in the timeline, e.g. "F mb3 compute", "B mb3 tp all-reduce x8",
/// (fine-mode kernels of a layer are named by write_trace: "F mb3 L5 attention"),
/// "bubble (waiting for mb4 from stage 2)".
std::string trace_event_name(const sim::TraceEvent& event, const Scenario& scenario);

} // namespace trainsim
