#include "models/schedule.hpp"

#include <algorithm>

namespace trainsim {
namespace {

/// The k-th forward (or backward) pass of an interleaved stage: microbatches advance in
/// groups of `stages`, and each group visits every chunk (backwards: in reverse order).
PipelineOp interleaved_pass(int k, bool forward, int stages, int chunks) {
  int group = k / (stages * chunks), in_group = k % (stages * chunks);
  int chunk = in_group / stages;
  return {forward, group * stages + in_group % stages, forward ? chunk : chunks - 1 - chunk};
}

std::vector<PipelineOp> one_f_one_b(int warmup, int passes, auto&& pass) {
  std::vector<PipelineOp> order;
  order.reserve(2 * static_cast<size_t>(passes));
  int forwards = 0, backwards = 0;
  while (forwards < warmup) order.push_back(pass(forwards++, true));
  while (forwards < passes) {
    order.push_back(pass(forwards++, true));
    order.push_back(pass(backwards++, false));
  }
  while (backwards < passes) order.push_back(pass(backwards++, false));
  return order;
}

} // namespace

std::vector<PipelineOp> pipeline_order(PipelineSchedule schedule, int stage, int stages,
                                       int microbatches, int chunks) {
  auto plain = [](int k, bool forward) { return PipelineOp{forward, k, 0}; };
  switch (schedule) {
  case PipelineSchedule::gpipe:
    return one_f_one_b(microbatches, microbatches, plain);
  case PipelineSchedule::one_f_one_b:
    return one_f_one_b(std::min(stages - stage - 1, microbatches), microbatches, plain);
  case PipelineSchedule::interleaved: {
    int passes = microbatches * chunks;
    int warmup = std::min((stages - stage - 1) * 2 + (chunks - 1) * stages, passes);
    return one_f_one_b(warmup, passes, [&](int k, bool forward) {
      return interleaved_pass(k, forward, stages, chunks);
    });
  }
  }
  return {};
}

} // namespace trainsim
