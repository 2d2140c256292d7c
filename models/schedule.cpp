#include "models/schedule.hpp"

#include <algorithm>

namespace trainsim {
namespace {

/// The interleaved stage's passes in order (forward; a backward takes the same entry with the
/// chunks reversed): microbatches advance in groups of `group`, each group visiting every
/// chunk before the next starts, the last group holding what is left (Megatron-Core's
/// get_schedule_table).
std::vector<PipelineOp> interleaved_table(int microbatches, int chunks, int group) {
  std::vector<PipelineOp> table;
  table.reserve(static_cast<size_t>(microbatches) * static_cast<size_t>(chunks));
  for (int first = 0; first < microbatches; first += group) {
    int end = std::min(first + group, microbatches);
    for (int chunk = 0; chunk < chunks; ++chunk)
      for (int mb = first; mb < end; ++mb) table.push_back({true, mb, chunk});
  }
  return table;
}

std::vector<PipelineOp> one_f_one_b(int warmup, int passes, auto&& pass) {
  std::vector<PipelineOp> order;
  order.reserve(2 * static_cast<size_t>(passes));
  int forwards = 0, backwards = 0;
  while (forwards < warmup) order.push_back(pass(forwards++, true));
  while (forwards < passes) {
    order.push_back(pass(forwards++, true));
    order.push_back(pass(backwards++, false));
    order[order.size() - 2].steady = order.back().steady = true;
  }
  while (backwards < passes) order.push_back(pass(backwards++, false));
  return order;
}

} // namespace

std::vector<PipelineOp> pipeline_order(PipelineSchedule schedule, int stage, int stages,
                                       int microbatches, int chunks, int group,
                                       int extra_warmup) {
  auto plain = [](int k, bool forward) { return PipelineOp{forward, k, 0}; };
  switch (schedule) {
  case PipelineSchedule::gpipe:
    return one_f_one_b(microbatches, microbatches, plain);
  case PipelineSchedule::one_f_one_b:
    return one_f_one_b(std::min(stages - stage - 1 + extra_warmup, microbatches), microbatches,
                       plain);
  case PipelineSchedule::interleaved: {
    if (group <= 0) group = stages;
    std::vector<PipelineOp> table = interleaved_table(microbatches, chunks, group);
    int passes = microbatches * chunks;
    int warmup = std::min((stages - stage - 1) * 2 + (chunks - 1) * group + extra_warmup, passes);
    return one_f_one_b(warmup, passes, [&](int k, bool forward) {
      PipelineOp op = table[static_cast<size_t>(k)];
      return PipelineOp{forward, op.microbatch, forward ? op.chunk : chunks - 1 - op.chunk};
    });
  }
  }
  return {};
}

} // namespace trainsim
