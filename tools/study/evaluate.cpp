#include "tools/study/evaluate.hpp"

#include "tools/study/fabric_summary.hpp"

#include "models/faults.hpp"

namespace trainsim {

Evaluation evaluate(const LoadedScenario& loaded, const sim::SimOptions& options, size_t busiest) {
  const Scenario& s = loaded.scenario;
  Evaluation e;
  e.result = sim::simulate(s, loaded.topology, options);
  e.summary = summarize(s, e.result);
  if (options.link_stats)
    e.summary.tiers =
        summarize_links(loaded.topology, e.result.channel_bytes, e.result.step_time, busiest);
  e.summary.critical_path =
      summarize_critical_path(e.result.critical_path, loaded.topology, fault_slowdowns(s));
  e.bound = closed_form_bound(s, fabric_summary(loaded.topology, s.execution));
  attach_bound(e.summary, e.bound);
  return e;
}

} // namespace trainsim
