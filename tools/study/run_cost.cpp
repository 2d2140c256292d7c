#include "tools/study/run_cost.hpp"

#include <algorithm>

#include "models/layout.hpp"
#include "models/step_program.hpp"
#include "sim/log.hpp"
#include "sim/progress.hpp"

namespace trainsim {

namespace {

// An op's rounds in fine mode (run_cost.hpp), at most `most` a call, its group taken at rank
// 0: a group's members per node, where each node holds the same share, are its ring's
// channels (GroupSpan).
double fine_rounds(const Op& op, const Layout& layout, int gpus_per_node, double most = 1e300) {
  if (op.kind != OpKind::collective && op.kind != OpKind::start_collective) return 1.0;
  GroupSpan g = layout.span(op.group, 0);
  int per_node = std::clamp(gpus_per_node / std::max(g.stride, 1), 1, g.size);
  int channels = per_node > 1 && per_node < g.size && g.size % per_node == 0 ? per_node : 1;
  double steps = (op.collective == CollectiveOp::all_reduce ? 2.0 : 1.0) * (g.size - 1);
  return op.count * std::max(1.0, std::min(steps, most) * channels);
}

} // namespace

RunCost estimate_run_cost(const Scenario& scenario, bool fine, int rails, int replicas,
                          std::optional<int> gpus_per_node, int own_rails) {
  const ExecutionSpec& e = scenario.execution;
  // Fast mode runs the rings the program marks in_rounds (the delayed update's) in up to
  // kMaxRoundsInRounds rounds: each costs its rounds.
  Layout layout(e);
  int node = gpus_per_node.value_or(scenario.system.topology.gpus_per_node());
  ProgramSize per_stage = program_size(scenario, [&](const Op& op) {
    return !fine && op.in_rounds ? fine_rounds(op, layout, node, kMaxRoundsInRounds) : 1.0;
  });
  RunCost cost;
  cost.actors = static_cast<double>(e.gpus()) * (rails > 1 ? 1 + own_rails : 1) / rails / replicas;
  cost.actor_ops = cost.actors * (fine ? per_stage.fine : per_stage.folded);
  cost.cpu_low = Seconds(cost.actor_ops * kCheapestOpSeconds);
  cost.cpu_high = Seconds(cost.actor_ops * kDearestOpSeconds);
  return cost;
}

RunCost estimate_fine_cost(const Scenario& scenario, int gpus_per_node) {
  Layout layout(scenario.execution);
  ProgramSize rounds =
      program_size(scenario, [&](const Op& op) { return fine_rounds(op, layout, gpus_per_node); });
  RunCost cost;
  cost.actors = scenario.execution.gpus();
  cost.actor_ops = cost.actors * rounds.fine;
  cost.cpu_low = Seconds(cost.actor_ops * kFineRoundSeconds);
  cost.cpu_high = cost.cpu_low;
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
