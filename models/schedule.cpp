#include "models/schedule.hpp"

#include <algorithm>

namespace trainsim {

std::vector<PipelineOp> pipeline_order(PipelineSchedule schedule, int stage, int stages, int microbatches) {
  std::vector<PipelineOp> order;
  order.reserve(2 * static_cast<size_t>(microbatches));
  int warmup = schedule == PipelineSchedule::gpipe ? microbatches : std::min(stages - stage - 1, microbatches);
  int forwards = 0, backwards = 0;
  while (forwards < warmup) order.push_back({true, forwards++});
  while (forwards < microbatches) {
    order.push_back({true, forwards++});
    order.push_back({false, backwards++});
  }
  while (backwards < microbatches) order.push_back({false, backwards++});
  return order;
}

} // namespace trainsim
