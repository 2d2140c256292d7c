#include "tools/study/run_cost.hpp"

#include "models/step_program.hpp"
#include "sim/log.hpp"
#include "sim/progress.hpp"

namespace trainsim {

RunCost estimate_run_cost(const Scenario& scenario, bool fine, int rails, int replicas) {
  const ExecutionSpec& e = scenario.execution;
  ProgramSize per_stage = program_size(scenario);
  RunCost cost;
  cost.actors = static_cast<double>(e.gpus()) / rails / replicas;
  cost.actor_ops = cost.actors * (fine ? per_stage.fine : per_stage.folded);
  cost.cpu_low = Seconds(cost.actor_ops * kCheapestOpSeconds);
  cost.cpu_high = Seconds(cost.actor_ops * kDearestOpSeconds);
  return cost;
}

void warn_if_long(const Scenario& scenario, const RunCost& cost, Seconds at_least) {
  logger("trainsim.run")
      ->debug("estimated cost: {:.0f} actors, {:.0f} actor-ops", cost.actors, cost.actor_ops);
  if (cost.cpu_low < at_least) return;
  const ExecutionSpec& e = scenario.execution;
  logger("trainsim.run")
      ->warn("{}: this step runs about {:.3g} million ops on {:.0f} GPU actors ({} microbatches "
             "per pipeline): {} to {} of CPU time; fewer microbatches (a smaller global_batch, a "
             "larger micro_batch) or fewer GPUs make it cheaper",
             scenario.file, cost.actor_ops / 1e6, cost.actors, e.microbatches(),
             sim::wait_text(cost.cpu_low.value()), sim::wait_text(cost.cpu_high.value()));
}

} // namespace trainsim
