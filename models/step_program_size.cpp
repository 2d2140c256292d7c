// How many ops a stage's program holds, counted from the program itself: the memory guard
// and the run-cost estimate ask before any full program exists, so the programs are built
// for two short steps and the count extended to the step's microbatches.
#include <algorithm>
#include <array>

#include "models/stage_layout.hpp"
#include "models/step_program.hpp"

namespace trainsim {
namespace {

// The largest stage's programs at the scenario's own microbatches. Stages differ only in
// their layers and in the ends' embedding, head and missing transfers, so the first, the last
// and the interior stage with the most layers hold the most ops between them.
ProgramSize largest_stage(const Scenario& s, const OpWeight& weight) {
  const ExecutionSpec& e = s.execution;
  int interior = 0;
  for (int stage = 1; stage + 1 < e.pp; ++stage)
    if (interior == 0 ||
        stage_layer_count(s.model, e, stage) > stage_layer_count(s.model, e, interior))
      interior = stage;
  auto total = [&weight](const Program& program) {
    if (!weight) return static_cast<double>(program.size());
    double sum = 0;
    for (const Op& op : program) sum += weight(op);
    return sum;
  };
  // The simulator takes the nodes from the built graph; an imported one that does not say
  // has 0 here, and every run kept in order is the most ops the fold can leave.
  int gpus_per_node = s.system.topology.gpus_per_node();
  ProgramSize size;
  for (int stage : std::array{0, e.pp - 1, interior}) {
    Program fine = stage_program(s, stage, false);
    size.fine = std::max(size.fine, total(fine));
    size.folded = std::max(size.folded, total(fast_program(s, fine, gpus_per_node)));
  }
  return size;
}

} // namespace

Scenario program_detail::with_microbatches(const Scenario& scenario, long microbatches) {
  Scenario s = scenario;
  ExecutionSpec& e = s.execution;
  e.global_batch = microbatches * e.dp * e.micro_batch;
  return s;
}

ProgramSize program_size(const Scenario& scenario, const OpWeight& weight) {
  // Every pass of a stage holds the same ops whatever the schedule's order, and the fold cuts
  // its runs at every pass, so both counts are affine in the microbatches from a group of
  // them on (the interleaved schedule's group, else one per stage).
  long m = scenario.execution.microbatches();
  long m1 = scenario.execution.shortest_microbatches(), m2 = 2 * m1;
  if (m <= m2) return largest_stage(scenario, weight);
  ProgramSize at1 =
      largest_stage(program_detail::with_microbatches(scenario, m1), weight);
  ProgramSize at2 =
      largest_stage(program_detail::with_microbatches(scenario, m2), weight);
  double more = static_cast<double>(m - m1) / static_cast<double>(m2 - m1);
  return {at1.fine + more * (at2.fine - at1.fine), at1.folded + more * (at2.folded - at1.folded)};
}

} // namespace trainsim
