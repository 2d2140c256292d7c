#include "models/schedule.hpp"

#include <algorithm>
#include <array>

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

// DualPipeV's passes on stage r of n, as dualpipev.py's DualPipeV.step() runs them (deepseek-ai/
// DualPipe at 3da1bbe), chunk 0 going down the stages and chunk 1 coming back up. Its steps,
// by the names it gives them: nF0, nF0F1, nB1W1F1, the main nF0B1F1B0, nB1F1B0, nB1B0, nWB0,
// nW. Each `_forward_backward_chunk` is a pair (steady: ep_overlap runs the two together); the
// last stage's first main-step pair is not overlapped, as there. The zero-bubble split of a
// backward into its input and weight gradients (`enable_zb`, `_weight_chunk`) is not built:
// each backward computes both, so W chunks are no passes here.
std::vector<PipelineOp> dualpipev(int r, int n, int m) {
  std::vector<PipelineOp> order;
  order.reserve(4 * static_cast<size_t>(m));
  std::array<int, 2> f{}, b{};
  auto forward = [&](int c) { order.push_back({true, f[c]++, c}); };
  auto backward = [&](int c) { order.push_back({false, b[c]++, c}); };
  auto pair = [&](int fc, int bc) {
    forward(fc), backward(bc);
    order[order.size() - 2].steady = order.back().steady = true;
  };
  int down = n - r - 1; // stages below this one
  for (int i = 0; i < 2 * down; ++i) forward(0);
  for (int i = 0; i <= r; ++i) forward(0), forward(1);
  for (int i = 0; i < down; ++i) backward(1), forward(1);
  for (int i = 0; i < m - 2 * n + r + 1; ++i) {
    if (i == 0 && r == n - 1)
      forward(0), backward(1);
    else
      pair(0, 1);
    pair(1, 0);
  }
  for (int i = 0; i < down; ++i) backward(1), pair(1, 0);
  for (int i = 0; i <= r; ++i) backward(1), backward(0);
  for (int i = 0; i < down; ++i) backward(0);
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
  case PipelineSchedule::dualpipev:
    return dualpipev(stage, stages, microbatches);
  }
  return {};
}

} // namespace trainsim
