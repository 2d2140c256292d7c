#include "models/stage_layout.hpp"

#include <algorithm>

#include "models/schedule.hpp"

namespace trainsim {
namespace {

bool fixed_ends(const ExecutionSpec& e) { return e.first_stage_layers > 0 || e.last_stage_layers > 0; }
int slots(const ExecutionSpec& e) {
  return (e.embedding_as_layer ? 1 : 0) + (e.loss_as_layer ? 1 : 0);
}
int middle_stages(const ExecutionSpec& e) {
  return e.pp - (e.first_stage_layers > 0 ? 1 : 0) - (e.last_stage_layers > 0 ? 1 : 0);
}
int middle_layers(const ModelSpec& m, const ExecutionSpec& e) {
  return m.layers - e.first_stage_layers - e.last_stage_layers;
}

// A stage's layers when the first or last stage's are fixed.
int fixed_stage_layers(const ModelSpec& m, const ExecutionSpec& e, int stage) {
  if (e.first_stage_layers > 0 && stage == 0) return e.first_stage_layers;
  if (e.last_stage_layers > 0 && stage == e.pp - 1) return e.last_stage_layers;
  return middle_layers(m, e) / middle_stages(e);
}

LayoutProblem fixed_ends_problem(const ModelSpec& m, const ExecutionSpec& e) {
  const char* key = e.first_stage_layers > 0 ? "execution.first_stage_layers"
                                             : "execution.last_stage_layers";
  std::string value = std::to_string(e.first_stage_layers > 0 ? e.first_stage_layers
                                                              : e.last_stage_layers);
  if (slots(e) > 0)
    return {"execution.embedding_as_layer", "true",
            "cannot be combined with first_stage_layers or last_stage_layers (nor can "
            "Megatron-LM's two ways of lightening the end stages)"};
  if (middle_stages(e) < 0 || e.pp < 2) return {key, value, "needs pp of at least 2"};
  int middle = middle_layers(m, e), stages = middle_stages(e);
  if (middle < stages || (stages == 0 && middle != 0) || (stages > 0 && middle % stages != 0))
    return {key, value,
            "leaves " + std::to_string(middle) + " of the model's " + std::to_string(m.layers) +
                " layers for " + std::to_string(stages) +
                " other stages, which does not split evenly with at least one layer each"};
  for (int stage : {0, e.pp - 1})
    if (fixed_stage_layers(m, e, stage) % e.chunks() != 0)
      return {key, value,
              "gives stage " + std::to_string(stage) + " " +
                  std::to_string(fixed_stage_layers(m, e, stage)) +
                  " layers, which do not divide into its " + std::to_string(e.chunks()) +
                  " interleaved chunks"};
  if (stages > 0 && (middle / stages) % e.chunks() != 0)
    return {key, value,
            "gives the middle stages " + std::to_string(middle / stages) +
                " layers each, which do not divide into " + std::to_string(e.chunks()) +
                " interleaved chunks"};
  return {};
}

// A layout written out must name every virtual stage, every layer and every module once, and
// leaves no other key a split to make.
LayoutProblem written_layout_problem(const ModelSpec& m, const ExecutionSpec& e) {
  const PipelineLayout& l = e.pipeline_layout;
  const std::string key = "execution.pipeline_layout", value = l.text;
  if (fixed_ends(e) || slots(e) > 0)
    return {key, value,
            "cannot be combined with first_stage_layers, last_stage_layers, embedding_as_layer "
            "or loss_as_layer: the layout already places every layer"};
  int virtual_stages = e.pp * e.chunks();
  if (l.stages() != virtual_stages)
    return {key, value,
            "has " + std::to_string(l.stages()) + " virtual stages; pp x interleave is " +
                std::to_string(virtual_stages)};
  if (l.total_layers() != m.layers)
    return {key, value,
            "places " + std::to_string(l.total_layers()) +
                " transformer layers (t); the model has " + std::to_string(m.layers)};
  if (l.mtp != m.mtp_layers)
    return {key, value,
            "places " + std::to_string(l.mtp) +
                " multi-token-prediction modules (m); the model's mtp_layers is " +
                std::to_string(m.mtp_layers)};
  return {};
}

} // namespace

int stage_layers(int layers, int pp, int stage) {
  return layers / pp + (stage < layers % pp ? 1 : 0);
}

namespace {

int decoder_layers(const ModelSpec& m, const ExecutionSpec& e, int stage, int chunk) {
  int v = e.chunks();
  if (!e.pipeline_layout.empty())
    return e.pipeline_layout.layers[static_cast<size_t>(e.virtual_stage(stage, chunk))];
  if (fixed_ends(e)) return fixed_stage_layers(m, e, stage) / v;
  if (slots(e) > 0) {
    int per = (m.layers + slots(e)) / (e.pp * v), virtual_stage = e.virtual_stage(stage, chunk);
    bool embedding = e.embedding_as_layer && virtual_stage == 0;
    bool loss = e.loss_as_layer && virtual_stage == e.pp * v - 1;
    return per - (embedding ? 1 : 0) - (loss ? 1 : 0);
  }
  if (v > 1) return m.layers / (e.pp * v);
  return stage_layers(m.layers, e.pp, stage);
}

} // namespace

int chunk_layers(const ModelSpec& m, const ExecutionSpec& e, int stage, int chunk) {
  bool last_virtual = e.virtual_stage(stage, chunk) == e.pp * e.chunks() - 1;
  return decoder_layers(m, e, stage, chunk) + (last_virtual ? m.mtp_layers : 0);
}

bool receives_from_stage(const ExecutionSpec& e, int stage, int chunk, bool forward) {
  int v = e.virtual_stage(stage, chunk), from = forward ? v - 1 : v + 1;
  if (from < 0 || from >= e.pp * e.chunks()) return false;
  return e.stage_and_chunk(from).first != stage;
}

int stage_layer_count(const ModelSpec& m, const ExecutionSpec& e, int stage) {
  int layers = 0;
  for (int c = 0; c < e.chunks(); ++c) layers += chunk_layers(m, e, stage, c);
  return layers;
}

int chunk_first_layer(const ModelSpec& m, const ExecutionSpec& e, int stage, int chunk) {
  int first = 0;
  for (int v = 0; v < e.virtual_stage(stage, chunk); ++v) {
    auto [s, c] = e.stage_and_chunk(v);
    first += chunk_layers(m, e, s, c);
  }
  return first;
}

int chunk_dense_layers(const ModelSpec& m, const ExecutionSpec& e, int stage, int chunk) {
  if (m.dense_layers <= 0) return 0;
  int before = m.dense_layers - chunk_first_layer(m, e, stage, chunk);
  return std::clamp(before, 0, chunk_layers(m, e, stage, chunk));
}

int stage_dense_layers(const ModelSpec& m, const ExecutionSpec& e, int stage) {
  int layers = 0;
  for (int c = 0; c < e.chunks(); ++c) layers += chunk_dense_layers(m, e, stage, c);
  return layers;
}

LayoutProblem layout_problem(const ModelSpec& m, const ExecutionSpec& e) {
  if (!e.pipeline_layout.empty()) return written_layout_problem(m, e);
  if (fixed_ends(e)) return fixed_ends_problem(m, e);
  int virtual_stages = e.pp * e.chunks();
  if (slots(e) > 0 && (m.layers + slots(e)) % virtual_stages != 0)
    return {e.embedding_as_layer ? "execution.embedding_as_layer" : "execution.loss_as_layer",
            "true",
            "the model's " + std::to_string(m.layers) + " layers and " +
                std::to_string(slots(e)) + " for the embedding and loss do not divide into pp x " +
                "chunks = " + std::to_string(virtual_stages) + " virtual stages"};
  if (slots(e) == 0 && e.v_shape() && m.layers % virtual_stages != 0)
    return {"execution.schedule", "dualpipev",
            "splits each stage into 2 chunks: 2 x pp = " + std::to_string(virtual_stages) +
                " must divide the model's " + std::to_string(m.layers) +
                " layers (or embedding_as_layer, loss_as_layer or a pipeline_layout must make "
                "the split even)"};
  if (slots(e) == 0 && e.chunks() > 1 && m.layers % virtual_stages != 0)
    return {"execution.interleave", std::to_string(e.interleave),
            "pp x interleave = " + std::to_string(virtual_stages) + " must divide the model's " +
                std::to_string(m.layers) +
                " layers (or first_stage_layers, last_stage_layers, embedding_as_layer or "
                "loss_as_layer must make the split even)"};
  return {};
}

double peak_held_layers(const ModelSpec& m, const ExecutionSpec& e, int stage) {
  long microbatches = e.microbatches();
  if (e.schedule == PipelineSchedule::gpipe)
    return static_cast<double>(microbatches) * stage_layer_count(m, e, stage);
  // After its warm-up the order repeats every group of microbatches (pp, or the interleaved
  // schedule's microbatch_group: every group x chunks passes), and the warm-up is under
  // (chunks + 1) x group passes: 3 groups pass the peak. A shorter walk must end on a whole
  // group as the schedule does; where the last group is partial the whole schedule is walked.
  long group = e.schedule == PipelineSchedule::interleaved ? e.group() : e.pp;
  bool whole_groups = microbatches % group == 0 && !e.v_shape(); // DualPipeV: walk it all
  int walked = static_cast<int>(whole_groups ? std::min(microbatches, 3 * group) : microbatches);
  double held = 0, peak = 0;
  for (const PipelineOp& op :
       pipeline_order(e.schedule, stage, e.pp, walked, e.chunks(), e.group(), e.ep_overlap)) {
    double layers = chunk_layers(m, e, stage, op.chunk);
    held += op.forward ? layers : -layers;
    peak = std::max(peak, held);
  }
  return peak;
}

} // namespace trainsim
