// A frontier point as a scenario `trainsim run` replays (frontier_scenario): the MLP-block
// model at the point's shape, the GPU the frontier priced, the plan as an execution, on a
// generated topology as close to the frontier's two tiers as a generator comes.
#include "models/frontier.hpp"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <variant>

#include "models/check.hpp"
#include "models/layout.hpp"

namespace trainsim {
namespace {

// The scenario precisions (tools/io/scenario_loader.cpp) by their bytes per word.
const char* precision_of(Bytes word) {
  if (word == Bytes(4)) return "fp32";
  if (word == Bytes(2)) return "bf16";
  if (word == Bytes(1)) return "fp8";
  return nullptr;
}

std::string name_of(const FrontierPoint& point) {
  char name[48];
  std::snprintf(name, sizeof name, "frontier-%s-%.3g",
                point.shape.layer.experts > 1 ? "moe" : "dense", point.shape.compute.value());
  return name;
}

// The MLP blocks at the point's shape. d_model and d_ff were kept real so that N is exact; a
// scenario has whole ones. One sequence per microbatch, as long as the tokens the plan gives a
// replica's microbatch.
ModelSpec model_of(const FrontierPoint& point) {
  const LayerShape& l = point.shape.layer;
  ModelSpec m;
  m.name = name_of(point);
  m.kind = ModelKind::mlp;
  m.layers = point.shape.layers;
  m.d_model = std::lround(l.d_model);
  m.d_ff = std::lround(l.d_ff);
  m.seq_len = std::lround(point.times.tokens_per_microbatch);
  m.experts = l.experts;
  m.top_k = l.top_k;
  m.bytes_per_word = l.bytes_per_word;
  m.precision = precision_of(l.bytes_per_word);
  return m;
}

// The plan, with the frontier's memory baseline (ZeRO-1) and as close as the simulator comes
// to the paper's overlap: the TP collectives pipelined with their kernels (tp_overlap), the
// DP reduction beside the whole step (delayed_update), as the paper hides it behind the
// pipeline, and kernel launches queued ahead of the kernels (launch_overlap), as the paper
// keeps latency a bound of its own.
ExecutionSpec execution_of(const FrontierPoint& point) {
  const ParallelPlan& p = point.plan;
  ExecutionSpec e;
  e.dp = static_cast<int>(std::lround(p.dp));
  e.tp = p.tp_1d;
  e.tp_2d = p.tp_2d;
  e.pp = p.pp;
  e.ep = p.ep;
  e.global_batch = static_cast<long>(e.dp) * p.microbatches;
  e.micro_batch = 1;
  e.schedule = p.interleave > 1 ? PipelineSchedule::interleaved : PipelineSchedule::one_f_one_b;
  e.interleave = p.interleave;
  e.zero = 1;
  e.delayed_update = true;
  e.tp_overlap = e.tp_ranks() > 1;
  // Megatron-LM refuses --tp-comm-overlap without --sequence-parallel (arguments.py): the
  // overlap pipelines all-gathers and reduce-scatters, which move an all-reduce's bytes. It
  // splits over the first TP axis: a plan of tp_2d alone has none to split over.
  e.sequence_parallel = e.tp_overlap && e.tp > 1;
  e.launch_overlap = true; // the paper counts launches only in its latency bound
  e.optimizer_bytes_per_param = point.shape.optimizer_bytes_per_param;
  return e;
}

} // namespace

topo::TopologySpec frontier_topology(const ParallelPlan& p, const FrontierHardware& hw) {
  // Nodes of the NVLink domain when a whole number of TP blocks fills one, or when a 2-D TP
  // block spans whole domains with its second axis inside each (the closed form's tiers:
  // tp_2d over NVLink, tp_1d across nodes; bundled when tp_2d is the domain, else every GPU
  // runs its own flows).
  // Otherwise nodes of one TP block, which then talks over NVLink where the closed form may
  // have priced the network (docs/validation.md, section 5).
  long gpus = std::lround(p.gpus()), domain = hw.fabric.domain, block = p.tp_1d * p.tp_2d;
  bool blocks_fill = domain % block == 0;
  bool spans_domains = p.tp_2d > 1 && block % domain == 0 && domain % p.tp_2d == 0;
  long per_node = (blocks_fill || spans_domains) && gpus % domain == 0 ? domain : block;
  topo::FatTreeParams f;
  f.rail_optimized = true;
  f.nodes = static_cast<int>(gpus / per_node);
  f.gpus_per_node = static_cast<int>(per_node);
  f.nvlink_bandwidth = hw.fabric.nvlink.bandwidth;
  f.nic_bandwidth = hw.fabric.network.bandwidth;
  // The closed form's network tier is each NIC's bandwidth to any GPU, which a non-blocking
  // tree gives only where its paths are loaded evenly: InfiniBand's adaptive routing, on by
  // default in OpenSM, lets a switch send each packet out of the least loaded of the ports
  // that lead to the destination (NVIDIA, "InfiniBand Cluster Bring-up Procedure", Adaptive
  // Routing), which packet spraying models (docs/topologies.md). Hashed or static routes load
  // some spine link with two flows where others carry none (docs/closed-form.md). Two tiers
  // keep it rail-symmetric, so that a replay of 1e5 GPUs runs bundled (docs/fast-mode.md,
  // "Rail bundling"); a leaf size changes nothing on a non-blocking tree.
  f.leaf_down_ports = std::lcm(f.leaf_down_ports, f.gpus_per_node);
  f.ecmp = "spray";
  return f;
}

std::string replay_obstacle(const FrontierPoint& point) {
  const ParallelPlan& p = point.plan;
  if (!point.feasible) return "infeasible";
  if (p.tp_2d > 1 && p.ep > 1) return "2-D tensor parallelism with experts (not modelled)";
  if (p.interleave > 1 && point.shape.layers % (p.pp * p.interleave) != 0)
    return "interleaving whose pp x interleave does not divide the layers";
  if (precision_of(point.shape.layer.bytes_per_word) == nullptr)
    return "no scenario precision has its word size";
  return "";
}

Scenario frontier_scenario(const FrontierPoint& point, const FrontierHardware& hw) {
  TRAINSIM_CHECK(replay_obstacle(point).empty(), "frontier_scenario() of a point it cannot replay");
  Scenario s;
  s.file = name_of(point);
  s.model = model_of(point);
  s.system.gpu = hw.gpu;
  s.system.topology = frontier_topology(point.plan, hw);
  s.execution = execution_of(point);
  // Transformer Engine's overlap moves the TP splits with its userbuffers kernels, which read
  // and write every peer's buffer at once over NVLink: direct collectives, where the TP block
  // is inside one node.
  const auto& nodes = std::get<topo::FatTreeParams>(s.system.topology.params);
  if (s.execution.tp_overlap && tp_block_in_node(s.execution, nodes.gpus_per_node))
    s.execution.tp_collective = "direct";
  // A block across nodes: the groups with one member per node (2-D TP's first axis) run
  // NCCL's PAT, whose ceil(log2 p) steps per half are the tree steps that the closed form's
  // latency term counts (half_steps); the others run the ring, as PAT does inside a node.
  else if (s.execution.tp_ranks() > 1 && hw.collective == CollectiveLatency::tree)
    s.execution.tp_collective = "pat";
  // The delayed update keeps the previous step's gradients while it reduces them, a second
  // buffer the paper's memory model, and so the frontier's plan, does not count: where it does
  // not fit, the GPU gets the HBM it needs (whole GB), so that the point replays as priced.
  Bytes need = memory_per_gpu(s.model, s.execution, s.system.gpu).total();
  if (need > s.system.gpu.hbm_capacity)
    s.system.gpu.hbm_capacity = Bytes(std::ceil(need.value() / 1e9) * 1e9);
  return s;
}

} // namespace trainsim
