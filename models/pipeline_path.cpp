#include "models/pipeline_path.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/schedule.hpp"
#include "models/stage_layout.hpp"

namespace trainsim {
namespace {

constexpr double kNotYet = -1.0;

// End times of every pass, indexed by virtual stage (ExecutionSpec::virtual_stage) and
// microbatch.
struct PassEnds {
  std::vector<std::vector<double>> forward, backward;
  PassEnds(int virtual_stages, int microbatches)
      : forward(static_cast<size_t>(virtual_stages),
                std::vector<double>(static_cast<size_t>(microbatches), kNotYet)),
        backward(forward) {}
  double& at(bool fwd, int vs, int mb) {
    return (fwd ? forward : backward)[static_cast<size_t>(vs)][static_cast<size_t>(mb)];
  }
};

// Just enough of an execution to place each virtual stage (ExecutionSpec::virtual_stage).
ExecutionSpec where_chunks_sit(PipelineSchedule schedule, int stages, int chunks) {
  ExecutionSpec e;
  e.schedule = schedule;
  e.pp = stages;
  if (schedule == PipelineSchedule::interleaved) e.interleave = chunks;
  return e;
}

class Walk {
public:
  Walk(PipelineSchedule schedule, int microbatches, int chunks, int group, int extra_warmup,
       const PassTimes& pass, Seconds send)
      : stages_(static_cast<int>(pass.forward.size()) / chunks), chunks_(chunks),
        spec_(where_chunks_sit(schedule, stages_, chunks)), pass_(pass), send_(send.value()),
        ends_(stages_ * chunks, microbatches), free_at_(static_cast<size_t>(stages_), 0.0),
        done_at_(static_cast<size_t>(stages_), 0.0), next_(static_cast<size_t>(stages_), 0) {
    for (int j = 0; j < stages_; ++j)
      order_.push_back(
          pipeline_order(schedule, j, stages_, microbatches, chunks, group, extra_warmup));
  }

  std::vector<Seconds> run() {
    for (bool progress = true; progress;) {
      progress = false;
      for (int j = 0; j < stages_; ++j)
        while (advance(j)) progress = true;
    }
    for (int j = 0; j < stages_; ++j)
      if (next_[static_cast<size_t>(j)] != order_[static_cast<size_t>(j)].size())
        throw std::logic_error("pipeline_finish: the schedule's dependencies form a cycle");
    std::vector<Seconds> out;
    for (double t : done_at_) out.emplace_back(t);
    return out;
  }

private:
  // Runs stage j's next pass if its input has been produced; false when it must wait.
  bool advance(int j) {
    auto s = static_cast<size_t>(j);
    if (next_[s] == order_[s].size()) return false;
    const PipelineOp& op = order_[s][next_[s]];
    int vs = spec_.virtual_stage(j, op.chunk), last = stages_ * chunks_ - 1;
    // Which transfers the pass waits for and makes, as the step program decides them: none
    // past the ends, none inside one stage (the bottom of DualPipeV's V).
    bool receives = receives_from_stage(spec_, j, op.chunk, op.forward);
    double input = 0.0;
    if (op.forward && vs > 0) input = arrival(ends_.at(true, vs - 1, op.microbatch), receives);
    if (!op.forward)
      input = vs == last ? ends_.at(true, vs, op.microbatch)
                         : arrival(ends_.at(false, vs + 1, op.microbatch), receives);
    if (input < 0) return false;
    double end = std::max(input, free_at_[s]) +
                 (op.forward ? pass_.forward : pass_.backward)[index(j, op.chunk)].value() +
                 extra(op.forward, vs == 0, vs == last);
    ends_.at(op.forward, vs, op.microbatch) = free_at_[s] = end;
    bool sends = receives_from_stage(spec_, j, op.chunk, !op.forward);
    done_at_[s] = std::max(done_at_[s], sends ? end + send_ : end);
    ++next_[s];
    return true;
  }

  [[nodiscard]] double extra(bool forward, bool first, bool last) const {
    auto of = [&](const PassTimes::Extra& x) { return (forward ? x.forward : x.backward).value(); };
    return (first ? of(pass_.first) : 0.0) + (last ? of(pass_.last) : 0.0);
  }

  // A pass's input produced at `produced`: one send later where it comes from another stage.
  [[nodiscard]] double arrival(double produced, bool sent) const {
    if (produced < 0) return kNotYet;
    return sent ? produced + send_ : produced;
  }
  // PassTimes hold the chunks one after the other, each by stage.
  [[nodiscard]] size_t index(int stage, int chunk) const {
    return static_cast<size_t>(chunk * stages_ + stage);
  }

  int stages_, chunks_;
  ExecutionSpec spec_; ///< the schedule's stages and chunks: where each virtual stage sits
  const PassTimes& pass_;
  double send_;
  PassEnds ends_;
  std::vector<std::vector<PipelineOp>> order_;
  std::vector<double> free_at_, done_at_;
  std::vector<size_t> next_;
};

} // namespace

std::vector<Seconds> pipeline_finish(PipelineSchedule schedule, int microbatches, int chunks,
                                     const PassTimes& pass, Seconds send, int group,
                                     int extra_warmup) {
  return Walk(schedule, microbatches, chunks, group, extra_warmup, pass, send).run();
}

} // namespace trainsim
