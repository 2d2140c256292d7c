#include "models/scenario_rules.hpp"

#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "models/collectives.hpp"
#include "models/error.hpp"
#include "models/layout.hpp"
#include "models/moe_rules.hpp"
#include "models/recompute_modules.hpp"
#include "models/schedule_rules.hpp"
#include "models/params.hpp"
#include "models/workload.hpp"

namespace trainsim {
namespace {

std::string whole(double n) {
  char out[32];
  std::snprintf(out, sizeof out, "%.15g", n);
  return out;
}

std::string grid_of(const ExecutionSpec& e) {
  std::string grid = std::to_string(e.dp) + " x " + std::to_string(e.tp) +
                     (e.tp_2d > 1 ? " x " + std::to_string(e.tp_2d) : "") + " x " +
                     std::to_string(e.pp);
  return e.cp > 1 ? grid + " x " + std::to_string(e.cp) : grid;
}

// "dp x tp x pp", with tp_2d and cp when the scenario has them.
std::string grid_keys(const ExecutionSpec& e) {
  return std::string("dp x tp") + (e.tp_2d > 1 ? " x tp_2d" : "") + " x pp" +
         (e.cp > 1 ? " x cp" : "");
}

// Every GPU of the grid, as a real number: e.gpus() overflows an int first.
double grid_gpus(const ExecutionSpec& e) {
  return static_cast<double>(e.dp) * e.tp * e.tp_2d * e.pp * e.cp;
}

// One scenario's rules, each naming its key under a section ("execution.dp").
struct Rules {
  const Scenario& s;

  [[noreturn]] void broken(const std::string& key, const std::string& value,
                           const std::string& problem) const {
    broken_rule(s, key, value, problem);
  }
  template <class T>
  void positive(const char* key, T v) const {
    if (v <= 0) broken(key, std::to_string(v), "must be greater than zero");
  }
};

void check_model(const Rules& r) {
  const ModelSpec& m = r.s.model;
  r.positive("model.layers", m.layers);
  r.positive("model.d_model", m.d_model);
  r.positive("model.d_ff", m.d_ff);
  r.positive("model.heads", m.heads);
  r.positive("model.seq_len", m.seq_len);
  r.positive("model.experts", m.experts);
  r.positive("model.top_k", m.top_k);
  if (m.top_k > m.experts)
    r.broken("model.top_k", std::to_string(m.top_k),
             "exceeds the number of experts (" + std::to_string(m.experts) + ")");
  if (m.head_dim < 0)
    r.broken("model.head_dim", std::to_string(m.head_dim), "must be greater than zero");
  if (m.kind == ModelKind::transformer && m.head_dim == 0 && !m.mla.on() &&
      m.d_model % m.heads != 0)
    r.broken("model.heads", std::to_string(m.heads),
             "must divide d_model (" + std::to_string(m.d_model) + ")");
}

// The per-operator model's parts: grouped-query attention, the vocabulary, selective
// recomputation and the GPU figures it prices with (docs/compute-model.md).
void check_compute(const Rules& r) {
  const ModelSpec& m = r.s.model;
  const GpuSpec& g = r.s.system.gpu;
  const std::string heads = std::to_string(m.heads), vocab = std::to_string(m.vocab);
  bool transformer = m.kind == ModelKind::transformer;
  if (transformer && (m.kv_heads < 0 || (m.kv_heads > 0 && m.heads % m.kv_heads != 0)))
    r.broken("model.kv_heads", std::to_string(m.kv_heads), "must divide heads (" + heads + ")");
  if (m.vocab < 0)
    r.broken("model.vocab", vocab, "must not be negative (0: no embedding or LM head)");
  if (m.compute == ComputeModel::roofline && m.vocab > 0)
    r.broken("model.vocab", vocab,
             "needs compute: operators (the roofline prices the layers only)");
  if (m.attention != AttentionKernel::flash && !m.per_operator())
    r.broken("model.attention", to_string(m.attention),
             "needs a transformer priced per operator (model.compute: operators)");
  if (m.attention == AttentionKernel::cudnn && !g.cudnn_attention.known())
    r.broken("model.attention", to_string(m.attention),
             "needs the GPU's cuDNN attention rates, which " +
                 (g.preset.empty() ? std::string("this GPU") : "preset " + g.preset) +
                 " does not have (system.gpu.cudnn_attention gives one rate; or attention: flash)");
  if (m.attention == AttentionKernel::unfused && m.mla.on())
    r.broken("model.attention", to_string(m.attention),
             "is not modelled with attention_kind: mla (its core runs as flash attention)");
  if (r.s.execution.recompute == Recompute::selective && !m.per_operator())
    r.broken("execution.recompute", to_string(r.s.execution.recompute),
             "selective needs a transformer priced per operator (model.compute: operators)");
  check_recompute_modules(r.s);
  if (g.gemm_peak > g.peak)
    r.broken("system.gpu.gemm_peak", format(g.gemm_peak),
             "exceeds the peak (" + format(g.peak) + "): it is what GEMMs achieve of it");
  for (auto [key, table] : {std::pair{"system.gpu.flash_attention", &g.flash_attention},
                            std::pair{"system.gpu.cudnn_attention", &g.cudnn_attention}})
    for (const auto* row : {&table->d64, &table->d128})
      for (const FlopPerSecond& rate : *row)
        if (rate > g.peak) r.broken(key, format(rate), "exceeds the peak (" + format(g.peak) + ")");
}

void check_degrees(const Rules& r) {
  const ExecutionSpec& e = r.s.execution;
  r.positive("execution.dp", e.dp);
  r.positive("execution.tp", e.tp);
  r.positive("execution.tp_2d", e.tp_2d);
  r.positive("execution.pp", e.pp);
  r.positive("execution.ep", e.ep);
  r.positive("execution.cp", e.cp);
  if (grid_gpus(e) > static_cast<double>(kMaxGpus))
    r.broken("execution.dp", std::to_string(e.dp),
             "gives " + grid_keys(e) + " = " + grid_of(e) + " GPUs, more than the " +
                 std::to_string(kMaxGpus) + " supported");
}

// Context parallelism as modelled (models/step_program.cpp): a transformer's flash attention over
// keys and values gathered from the CP group, each rank holding 2 of the sequence's 2 cp
// pieces (Llama 3's load balance for the causal mask).
void check_context(const Rules& r) {
  const ExecutionSpec& e = r.s.execution;
  const ModelSpec& m = r.s.model;
  if (e.cp == 1) return;
  std::string cp = std::to_string(e.cp);
  if (m.kind != ModelKind::transformer)
    r.broken("execution.cp", cp, "needs a transformer (the MLP-block model has no attention)");
  if (!fused(m.attention))
    r.broken("execution.cp", cp,
             "needs a fused attention kernel, flash or cudnn (CP splits one kernel)");
  if (m.seq_len % (2L * e.cp) != 0)
    r.broken("execution.cp", cp,
             "must split model.seq_len (" + std::to_string(m.seq_len) +
                 ") into 2 x cp = " + std::to_string(2L * e.cp) + " equal pieces");
}

// 2-D tensor parallelism as modelled (models/step_program.cpp): the paper's MLP block, whose two
// matmuls split both their dimensions; attention's and the experts' splits are not modelled.
void check_two_d(const Rules& r) {
  const ExecutionSpec& e = r.s.execution;
  if (e.tp_2d == 1) return;
  std::string tp_2d = std::to_string(e.tp_2d);
  if (r.s.model.kind != ModelKind::mlp)
    r.broken("execution.tp_2d", tp_2d,
             "needs model.kind: mlp (2-D TP is modelled for the paper's MLP block only)");
  if (e.ep > 1 || e.etp > 0)
    r.broken("execution.tp_2d", tp_2d, "with ep > 1 or etp is not modelled");
}

void check_batch(const Rules& r) {
  const ExecutionSpec& e = r.s.execution;
  r.positive("execution.global_batch", e.global_batch);
  r.positive("execution.micro_batch", e.micro_batch);
  // Divided before multiplied: dp x micro_batch may not fit in a long.
  if (e.micro_batch > e.global_batch / e.dp ||
      e.global_batch % (static_cast<long>(e.dp) * e.micro_batch) != 0)
    r.broken("execution.global_batch", std::to_string(e.global_batch),
             "does not divide into dp x micro_batch = " + std::to_string(e.dp) + " x " +
                 std::to_string(e.micro_batch) + " sequences per microbatch round");
}

// Activation offloading as Megatron-Core's TransformerConfig allows it: fewer layers than the
// model's (the last keeps its activations), and neither pipeline parallelism nor
// recomputation beside it (both refused there).
void check_offload(const Rules& r) {
  const ExecutionSpec& e = r.s.execution;
  if (e.offload_layers == 0) return;
  const std::string n = std::to_string(e.offload_layers);
  if (e.offload_layers >= r.s.model.layers)
    r.broken("execution.offload_layers", n,
             "must be below the model's layers (" + std::to_string(r.s.model.layers) +
                 "): the last layer's activations stay on the GPU");
  if (e.pp > 1)
    r.broken("execution.offload_layers", n,
             "needs pp 1 (pp is " + std::to_string(e.pp) +
                 "): Megatron-Core offloads no activations under pipeline parallelism");
  if (e.recompute != Recompute::none)
    r.broken("execution.offload_layers", n,
             "needs recompute: none (Megatron-Core offloads no activations beside recomputation)");
}

void check_collective(const Rules& r, const char* key, const std::string& name,
                      const std::vector<CollectiveOp>& ops) {
  const CollectiveInfo* algorithm = find_collective(name);
  if (algorithm == nullptr)
    r.broken(key, name, "is not a collective algorithm" + did_you_mean(name, collective_names()));
  for (CollectiveOp op : ops)
    if (!algorithm->supports(op))
      r.broken(key, name, "has no " + to_string(op) + ", which this execution needs");
}

// GPUs per NVSwitch node of a node-based fabric (fat-tree, rail-optimized, dragonfly), where a
// GPU reaches every other GPU of its node over its one NVLink port; 0 for a torus or a file.
int nvswitch_node(const topo::TopologySpec& t) {
  if (const auto* f = std::get_if<topo::FatTreeParams>(&t.params)) return f->gpus_per_node;
  if (const auto* d = std::get_if<topo::DragonflyParams>(&t.params)) return d->node.gpus_per_node;
  return 0;
}

// An algorithm that runs only inside one NVSwitch node (`direct`, Transformer Engine's
// userbuffers traffic) is priced there, where a GPU's one port carries its flows to all its
// peers. Across nodes, or on a torus (several ports a GPU), the bound has no exact price for
// it, so it is refused there; DP groups always span nodes.
void check_one_node(const Rules& r) {
  const ExecutionSpec& e = r.s.execution;
  auto one_node = [](const std::string& name) {
    const CollectiveInfo* info = find_collective(name);
    return info != nullptr && info->one_node;
  };
  if (one_node(e.dp_collective) && e.weight_replicas() > 1) {
    std::vector<std::string> others;
    for (const CollectiveInfo& info : collective_catalogue())
      if (!info.one_node && info.supports(CollectiveOp::all_reduce)) others.push_back(info.name);
    r.broken("execution.dp_collective", e.dp_collective,
             "runs only inside one NVSwitch node; DP groups use " + alternatives(others));
  }
  int node = nvswitch_node(r.s.system.topology);
  if (one_node(e.tp_collective) && e.tp_ranks() > 1 && !tp_block_in_node(e, node))
    r.broken(
        "execution.tp_collective", e.tp_collective,
        "needs each TP block inside one NVSwitch node (" + std::to_string(e.tp_ranks()) +
            " GPUs; the topology's nodes hold " +
            (node == 0 ? std::string("none: a torus or imported graph") : std::to_string(node)) +
            ")");
}

void check_sharding(const Rules& r) {
  const ExecutionSpec& e = r.s.execution;
  if (e.zero < 0 || e.zero > 3)
    r.broken("execution.zero", std::to_string(e.zero), "must be 0, 1, 2 or 3");
  if (e.dp_bucket && *e.dp_bucket <= Bytes(0))
    r.broken("execution.dp_bucket", format(*e.dp_bucket), "must be greater than zero");
  if (e.dp_bucket && !e.dp_overlap && !e.param_gather_overlap)
    r.broken("execution.dp_bucket", format(*e.dp_bucket),
             "splits dp_overlap's gradient reductions (and param_gather_overlap's gathers), "
             "which are off; set dp_overlap: true or drop it");
  if (e.delayed_update && e.zero >= 3)
    r.broken("execution.delayed_update", "true",
             "needs zero below 3: ZeRO-3 reduces each layer's gradients during the backward pass, "
             "leaving nothing to delay");
  if (e.delayed_update && e.dp_overlap)
    r.broken("execution.dp_overlap", "true",
             "conflicts with delayed_update, which already runs the whole gradient reduction "
             "alongside the next step; set one of the two");
  if (e.param_gather_overlap && e.zero != 1 && e.zero != 2)
    r.broken("execution.param_gather_overlap", "true",
             "needs zero 1 or 2: only they gather the updated parameters after the step");
  if (e.fp8_param_gather && r.s.model.precision != "fp8")
    r.broken("execution.fp8_param_gather", "true",
             "needs model.precision: fp8: only FP8 training keeps FP8 copies of the weights");
  if (e.fp8_param_gather && e.zero == 0)
    r.broken("execution.fp8_param_gather", "true",
             "needs zero 1, 2 or 3: without ZeRO no parameters are gathered");
  if (e.zero3_prefetch && e.zero != 3)
    r.broken("execution.zero3_prefetch", "true",
             "needs zero 3: only it gathers each layer's parameters during the passes");
  if (e.param_gather_overlap && e.delayed_update)
    r.broken("execution.param_gather_overlap", "true",
             "conflicts with delayed_update, which already gathers the parameters alongside the "
             "next step; set one of the two");
  if (e.sequence_parallel && e.tp == 1)
    r.broken("execution.sequence_parallel", "true",
             "needs tp > 1: it splits the layer norms' tokens over the first TP axis, which "
             "has one rank here");
  if (e.tp_overlap && e.tp_ranks() == 1)
    r.broken("execution.tp_overlap", "true",
             "needs tp or tp_2d > 1: there is no TP collective to overlap");
  if (e.tp_overlap_splits > kMaxTpOverlapSplits)
    r.broken("execution.tp_overlap_splits", std::to_string(e.tp_overlap_splits),
             "must be at most " + std::to_string(kMaxTpOverlapSplits) +
                 ": each split is a kernel and a collective of its own, each paying its launch "
                 "and latency (Transformer Engine's pipelined overlap uses 4)");
  if (!e.tp_overlap && e.tp_overlap_splits != kTpOverlapSplits)
    r.broken("execution.tp_overlap_splits", std::to_string(e.tp_overlap_splits),
             "splits tp_overlap's pipelines, which is off; set tp_overlap: true or drop it");
  const std::vector<CollectiveOp> halves{CollectiveOp::reduce_scatter, CollectiveOp::all_gather};
  const std::vector<CollectiveOp> whole_reduce{CollectiveOp::all_reduce};
  // 2-D TP's hidden all-reduce needs what the plain TP all-reduce does: every algorithm with
  // the halves has it too.
  check_collective(r, "execution.tp_collective", e.tp_collective,
                   e.sequence_parallel ? halves : whole_reduce);
  // The DP algorithm also runs the CP group's key/value gathers and their reduce-scatters.
  std::vector<CollectiveOp> dp_ops = e.zero >= 1 ? halves : whole_reduce;
  if (e.cp > 1 && e.zero == 0) dp_ops.insert(dp_ops.end(), halves.begin(), halves.end());
  check_collective(r, "execution.dp_collective", e.dp_collective, dp_ops);
  check_collective(r, "execution.ep_collective", e.ep_collective, {CollectiveOp::all_to_all});
  check_one_node(r);
}

void check_fit(const Rules& r) {
  const ExecutionSpec& e = r.s.execution;
  const ModelSpec& m = r.s.model;
  if (e.pp > m.layers)
    r.broken("execution.pp", std::to_string(e.pp),
             "exceeds the model's " + std::to_string(m.layers) + " layers");
  if (LayoutProblem p = layout_problem(m, e); !p.empty()) r.broken(p.key, p.value, p.why);
  check_moe_execution(r.s); // ep, etp and the MoE keys: models/moe_rules.cpp
  if (m.kind == ModelKind::transformer && m.heads % e.tp != 0)
    r.broken("execution.tp", std::to_string(e.tp),
             "must divide the model's " + std::to_string(m.heads) + " attention heads");
}

} // namespace

void check_gpu_total(const Scenario& s, double topology_gpus) {
  const ExecutionSpec& e = s.execution;
  double grid = grid_gpus(e);
  if (grid == topology_gpus) return;
  throw InputError(s.file, "execution." + grid_keys(e), grid_of(e) + " = " + whole(grid),
                   "must equal the topology's " + whole(topology_gpus) + " GPUs");
}

void broken_rule(const Scenario& s, const std::string& key, const std::string& value,
                 const std::string& problem) {
  throw InputError(s.file, key, value, problem);
}

std::string over_capacity(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  MemoryUse use = memory_per_gpu(s.model, e, s.system.gpu);
  if (use.total() <= s.system.gpu.hbm_capacity) return "";
  return "too small: " + grid_keys(e) + " = " + grid_of(e) + " needs " + format(use.total()) +
         " per GPU (" + memory_parts(use) + ")";
}

void check_scenario(const Scenario& s, std::optional<double> topology_gpus, Memory memory) {
  Rules rules{s};
  check_model(rules);
  check_compute(rules);
  check_degrees(rules);
  check_context(rules);
  check_two_d(rules);
  check_batch(rules);
  check_schedule(s); // models/schedule_rules.cpp
  check_offload(rules);
  check_sharding(rules);
  if (topology_gpus) check_gpu_total(s, *topology_gpus);
  check_faults(s);
  check_fit(rules);
  if (std::string why = over_capacity(s); !why.empty() && memory == Memory::must_fit)
    throw InputError(s.file, "system.gpu.hbm_capacity", format(s.system.gpu.hbm_capacity), why);
}

} // namespace trainsim
