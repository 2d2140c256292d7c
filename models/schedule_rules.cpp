#include "models/schedule_rules.hpp"

#include <string>

#include "models/scenario_rules.hpp"

namespace trainsim {
namespace {

// Megatron-Core's interleaved schedule (pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving) takes the microbatches in groups of
// microbatch_group_size_per_vp_stage, which must lie in [pp, M], and refuses a last group of
// fewer than pp microbatches ("it introduces dependency bubbles in the pipeline").
void check_microbatch_group(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  const char* key = "execution.microbatch_group";
  if (e.microbatch_group > 0 && e.schedule != PipelineSchedule::interleaved)
    broken_rule(s, key, std::to_string(e.microbatch_group), "needs schedule: interleaved");
  if (e.schedule != PipelineSchedule::interleaved) return;
  long m = e.microbatches(), group = e.group(), last = m % group;
  std::string counts = "the microbatches per pipeline (" + std::to_string(m) + ")";
  if (e.microbatch_group == 0 && last != 0) // group pp: M < pp leaves a remainder too
    broken_rule(s, "execution.schedule", to_string(e.schedule),
                "interleaved needs " + counts + " to be a multiple of pp (" + std::to_string(e.pp) +
                    "), or a microbatch_group whose last group holds at least pp");
  if (group < e.pp || group > m)
    broken_rule(s, key, std::to_string(group),
                "must be at least pp (" + std::to_string(e.pp) + ") and at most " + counts);
  if (last > 0 && last < e.pp)
    broken_rule(s, key, std::to_string(group),
                "leaves a last group of " + std::to_string(last) + " of " + counts +
                    ", fewer than pp (" + std::to_string(e.pp) +
                    "): its passes would wait on one another (Megatron-Core refuses it)");
}

// DualPipeV (deepseek-ai/DualPipe, dualpipev.py) asserts num_chunks >= num_ranks * 2: its
// warm-up puts 2 (pp - s - 1) + s + 1 forwards of chunk 0 on stage s before its first
// backward. Its V gives each stage two chunks of its own, which fixed end stages would not
// split.
void check_dualpipev(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  if (!e.v_shape()) return;
  const std::string name = "dualpipev";
  if (e.pp < 2) broken_rule(s, "execution.schedule", name, "needs pp of at least 2");
  if (e.microbatches() < 2L * e.pp)
    broken_rule(s, "execution.schedule", name,
                "needs at least 2 x pp = " + std::to_string(2 * e.pp) +
                    " microbatches per pipeline (global_batch / (dp x micro_batch) is " +
                    std::to_string(e.microbatches()) + ")");
  if (e.first_stage_layers > 0 || e.last_stage_layers > 0)
    broken_rule(s, "execution.schedule", name,
                "cannot be combined with first_stage_layers or last_stage_layers: the first "
                "stage holds both ends of the V (write a pipeline_layout instead)");
}

} // namespace

void check_schedule(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  check_dualpipev(s);
  if (e.interleave <= 0)
    broken_rule(s, "execution.interleave", std::to_string(e.interleave),
                "must be greater than zero");
  if (e.first_stage_layers < 0)
    broken_rule(s, "execution.first_stage_layers", std::to_string(e.first_stage_layers),
                "must be greater than zero");
  if (e.last_stage_layers < 0)
    broken_rule(s, "execution.last_stage_layers", std::to_string(e.last_stage_layers),
                "must be greater than zero");
  if (e.schedule != PipelineSchedule::interleaved && e.interleave != 1)
    broken_rule(s, "execution.interleave", std::to_string(e.interleave),
                "needs schedule: interleaved");
  check_microbatch_group(s);
  double passes = static_cast<double>(e.microbatches()) * e.chunks();
  if (passes > kMaxPipelinePasses)
    broken_rule(s, "execution.global_batch", std::to_string(e.global_batch),
                "gives " + std::to_string(e.microbatches()) + " microbatches per pipeline" +
                    (e.chunks() > 1 ? " x " + std::to_string(e.chunks()) + " chunks" : "") +
                    " (global_batch / (dp x micro_batch)); at most 100000000 passes are supported");
}

} // namespace trainsim
