#include "tools/study/resource_guard.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#include <sys/resource.h>

#include <boost/graph/adjacency_list.hpp>

#include "models/error.hpp"
#include "tools/formats/text.hpp"
#include "tools/study/cgroup_memory.hpp"
#include "models/schedule.hpp"
#include "models/stage_layout.hpp"
#include "sim/program.hpp"
#include "sim/simulation.hpp"

namespace trainsim {
namespace {

// GiB, the unit free(1) and most machine specs use; MiB below one GiB so small numbers stay
// readable.
std::string binary_size(Bytes b) {
  char text[32];
  if (b.value() >= 1073741824.0)
    std::snprintf(text, sizeof text, "%.1f GiB", b.value() / 1073741824.0);
  else
    std::snprintf(text, sizeof text, "%.0f MiB", b.value() / 1048576.0);
  return text;
}

// "400,000": counts users compare with their dp x tp x pp.
std::string grouped(long n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

bool forced_by_environment() {
  const char* value = std::getenv("TRAINSIM_FORCE");
  return value != nullptr && std::string_view(value) != "" && std::string_view(value) != "0";
}

// The ops sim/program.cpp builds per stage, from the scenario's shape: per microbatch and
// chunk a forward and a backward pass, each a receive (under scatter/gather and a TP
// all-gather), its layers and a send. Fine: per layer each block's kernel and collectives
// (with experts an all-to-all before and after the MLP; full recomputation runs the forward's
// again in the backward; with ZeRO-3 a parameter all-gather each way and a gradient
// reduce-scatter; with context parallelism a K/V all-gather each pass, recomputed ones too,
// and a reduce-scatter backward; with sequence parallelism a second all-gather per block
// backward). Folded: per pass one compute op and one op per distinct
// collective; under tp_overlap, one layer's blocks per pass (sim/program_fold.cpp).
// Trust.ProgramEstimateBoundsTheBuiltPrograms holds both to the programs sim builds.
ProgramOps stage_ops(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  double tp = e.tp > 1 ? (e.sequence_parallel ? 2.0 : 1.0) : 0.0; // per block
  double blocks = s.model.kind == ModelKind::transformer ? 2.0 : 1.0;
  double experts = e.ep > 1 ? 2.0 : 0.0;
  bool zero3 = e.zero >= 3;
  double context = e.cp > 1 ? 1.0 : 0.0;
  // Per chunk, the mean of the stage that holds the most layers (chunks may differ).
  double layers = 0;
  for (int j = 0; j < e.pp; ++j)
    layers = std::max(layers, static_cast<double>(stage_layer_count(s.model, e, j)));
  layers /= e.chunks();
  // With a vocabulary the first and last stages add an embedding or LM head op each way.
  double vocabulary = s.model.per_operator() && s.model.vocab > 0 ? 2.0 : 0.0;
  double passes = e.recompute == Recompute::full ? 3.0 : 2.0;
  double gathers = e.gathers_pp_receives() ? 2.0 : 0.0;
  double regather = e.tp > 1 && e.sequence_parallel ? blocks : 0.0; // backward's second gather
  // tp_overlap: a block's kernel and each of its TP collectives in k chunks, a wait for the
  // gathers before each chunk under sequence parallelism, one for the block, and (counted in
  // every pass) the weight gradient beside the backward's collective (sim/program.cpp).
  double k = e.tp_overlap ? e.tp_overlap_chunks : 1.0;
  double chunk_wait = e.sequence_parallel ? 1.0 : 0.0;
  double block = e.tp_overlap ? k * (1.0 + tp + chunk_wait) + 2.0 : 1.0 + tp;
  // 2-D TP: the MLP block's second kernel and its hidden all-reduce; overlapped, k chunks of
  // the kernel, k starts of the all-reduce and k waits for them.
  double two_d = e.tp_2d > 1 ? (e.tp_overlap ? 3.0 * k : 2.0) : 0.0;
  double fine_pair = layers * (passes * (blocks * block + two_d + experts + context) + context +
                               k * regather + (zero3 ? 3.0 : 0.0)) +
                     4.0 + vocabulary + gathers;
  // Folded, a forward and a backward pass: a compute op and the distinct collectives each
  // (an expert all-to-all twice is one op with a count), between a receive and a send.
  double distinct = tp + (experts > 0 ? 1.0 : 0.0) +
                    2.0 * context + // CP: all-gather, reduce-scatter
                    (e.tp_2d > 1 ? 1.0 : 0.0);
  // tp_overlap folds a pass's repeated layers into one layer's blocks, each op scaled by the
  // repetitions; a block that differs from the others (the first stage's, which starts with
  // the embedding) and the one the pattern leaves over stay beside them.
  double layer_pass = blocks * block + two_d + experts + context + k * regather;
  double pass = e.tp_overlap ? layer_pass + 2.0 : 1.0 + distinct;
  // Overlapped, a backward run keeps its recomputed forward's blocks apart from its own.
  double runs = e.tp_overlap ? passes : 2.0;
  double folded_pair = runs * pass + 4.0 + (zero3 ? 3.0 : 0.0) + gathers;
  double pairs = static_cast<double>(e.microbatches()) * e.chunks();
  // Gradient sync: at most two reductions, two gathers, the waits and the optimizer step. With
  // overlap, a bucket may start after any layer of the last backward pass, each splitting its
  // folded run.
  double buckets = e.dp_overlap && !zero3 ? layers * e.chunks() : 0.0;
  // Early parameter gathers: at most one per layer and the first forwards' waits for them,
  // each wait splitting its folded run.
  double early = e.param_gather_overlap ? layers * e.chunks() : 0.0;
  double tail = (s.model.per_operator() ? 7.0 : 6.0) + buckets * 2.0 + early * 2.0;
  // Without pipeline transfers (one stage, one chunk) the passes still end their runs
  // (sim/program_fold.cpp).
  double single = pairs * runs * pass;
  double folded = e.pp * e.chunks() == 1 ? single + (zero3 ? 2.0 : 0.0) : pairs * folded_pair;
  return {pairs * fine_pair + tail, folded + tail + (buckets + early) * (1.0 + distinct)};
}

// The pipeline schedule's longest path (models/pipeline_path.cpp), which bounds and run both
// compute: every stage's pass order and the end time of each pass. The child also makes each
// stage's order once more while it builds the programs, and the programs themselves; a vector
// grown by push_back may hold twice its size.
Bytes program_bytes(const Scenario& s, Footprint footprint) {
  const ExecutionSpec& e = s.execution;
  double passes = 2.0 * static_cast<double>(e.microbatches()) * e.chunks(); // per stage
  double walk = e.pp * passes * (sizeof(PipelineOp) + sizeof(double));
  if (footprint != Footprint::simulation) return Bytes(walk);
  ProgramOps ops = stage_ops(s);
  double programs = 2.0 * (ops.fine + e.pp * ops.folded) * sizeof(sim::Op);
  return Bytes(walk + passes * sizeof(PipelineOp) + programs);
}

std::string items(const MemoryEstimate& need, Footprint footprint) {
  std::string text =
      footprint == Footprint::simulation
          ? grouped(need.gpus) + " GPU actors and " + grouped(need.links) + " links"
          : grouped(need.vertices) + " vertices and " + grouped(need.links) + " links";
  if (need.program > need.total * 0.1)
    text += ", with " + grouped(need.microbatches) +
            " microbatches per pipeline (schedule and programs " + binary_size(need.program) + ")";
  return text;
}

// What to change: whatever dominates the estimate.
std::string advice(const MemoryEstimate& need, Footprint footprint) {
  if (need.program > need.total * 0.5)
    return "fewer microbatches per pipeline: a smaller global_batch, a larger micro_batch or dp";
  if (footprint == Footprint::simulation) return "simulate fewer GPUs: a smaller dp, fewer nodes";
  return "a smaller fabric: fewer nodes";
}

std::string refusal(const Scenario& scenario, const MemoryEstimate& need, Footprint footprint,
                    Bytes have, bool address_space, double usable) {
  Bytes needed = address_space ? need.address_space : need.total;
  std::string limit = (address_space
                           ? "the address-space limit (ulimit -v) leaves " + binary_size(have)
                           : "this machine has " + binary_size(have) + " available") +
                      ", of which a run may use " + formatted("%.0f", 100 * usable) + "% (" +
                      binary_size(have * usable) + ")";
  return scenario.file + ": needs about " + binary_size(needed) +
         (address_space ? " of address space" : "") + " for " + items(need, footprint) + "; " +
         limit + " (" + advice(need, footprint) + "; or set TRAINSIM_FORCE=1 to try anyway)";
}

// A "Key:  N kB" line of a /proc file (meminfo, self/status), or nullopt.
std::optional<Bytes> proc_kib(const char* path, std::string_view wanted) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    double kib = 0;
    if (fields >> key >> kib && key == wanted) return Bytes(kib * 1024.0);
  }
  return std::nullopt;
}

topo::TopologySize size_of(const Scenario& scenario, const topo::Topology& topology) {
  return {static_cast<double>(scenario.execution.gpus()),
          static_cast<double>(boost::num_vertices(topology.graph())),
          static_cast<double>(topology.link_count())};
}

// `held`: what of the estimate is already allocated, and so already missing from MemAvailable.
void check(const Scenario& scenario, const topo::TopologySize& size, Footprint footprint,
           const GuardParams& params, Bytes held) {
  if (params.force || forced_by_environment()) return;
  bool injected = params.available || params.address_space; // tests: the machine is not read
  std::optional<Bytes> available = injected ? params.available : available_memory();
  std::optional<Bytes> address_space = injected ? params.address_space : address_space_left();
  MemoryEstimate need = estimate_memory(scenario, size, footprint, params.costs);
  // Without /proc (not Linux) nothing is refused: better to try than to refuse blindly.
  if (available && need.total - held > *available * params.usable_fraction)
    throw Error(ExitCode::resources,
                refusal(scenario, need, footprint, *available, false, params.usable_fraction));
  if (address_space && need.address_space - held > *address_space * params.usable_fraction)
    throw Error(ExitCode::resources,
                refusal(scenario, need, footprint, *address_space, true, params.usable_fraction));
}

} // namespace

ProgramOps estimate_program_ops(const Scenario& scenario) { return stage_ops(scenario); }

// Bytes per link and per vertex of each format, from exports of 1M-vertex tori with 2M and
// 3M links (docs/trust.md, "Memory guard").
MemoryCosts export_costs(const std::string& format) {
  MemoryCosts costs;
  if (format == "dot") costs.per_export_link = 75, costs.per_export_vertex = 62;
  if (format == "json") costs.per_export_link = 125, costs.per_export_vertex = 65;
  return costs;
}

MemoryEstimate estimate_memory(const Scenario& scenario, const topo::TopologySize& size,
                               Footprint footprint, const MemoryCosts& costs) {
  MemoryEstimate e;
  e.gpus = std::lround(size.gpus);
  e.links = std::lround(size.links);
  e.vertices = std::lround(size.vertices);
  e.microbatches = scenario.execution.microbatches();
  e.program = program_bytes(scenario, footprint);
  double graph = costs.per_vertex * size.vertices;
  int rails = costs.rail_bundling ? sim::rail_bundle(scenario) : 1;
  if (footprint == Footprint::simulation && rails > 1)
    graph += costs.per_gpu_bundled * size.gpus +
             (costs.per_graph_link + (costs.per_link - costs.per_graph_link) / rails) * size.links;
  else if (footprint == Footprint::simulation)
    graph += costs.per_gpu * size.gpus + costs.per_link * size.links;
  else
    graph += costs.per_graph_link * size.links;
  // The export is built in a string stream and copied out of it: twice the text, as measured.
  if (footprint == Footprint::exported)
    graph += 2.0 * (costs.per_export_link * size.links + costs.per_export_vertex * size.vertices);
  e.total = Bytes(costs.fixed + graph) + e.program;
  double stacks = footprint == Footprint::simulation ? costs.stack_reserve * size.gpus : 0.0;
  e.address_space = e.total + Bytes(stacks);
  return e;
}

MemoryEstimate estimate_memory(const Scenario& scenario, const topo::Topology& topology,
                               const MemoryCosts& costs) {
  return estimate_memory(scenario, size_of(scenario, topology), Footprint::simulation, costs);
}

std::optional<Bytes> available_memory() {
  std::optional<Bytes> machine = proc_kib("/proc/meminfo", "MemAvailable:"),
                       cgroup = cgroup_memory_left();
  if (machine && cgroup) return std::min(*machine, *cgroup);
  return machine ? machine : cgroup;
}

std::optional<Bytes> address_space_left() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  Bytes used = proc_kib("/proc/self/status", "VmSize:")
                   .value_or(Bytes(0)); // VmSize counts against RLIMIT_AS
  return Bytes(std::max(0.0, static_cast<double>(limit.rlim_cur) - used.value()));
}

void check_resources(const Scenario& scenario, const topo::TopologySize& size, Footprint footprint,
                     const GuardParams& params) {
  check(scenario, size, footprint, params, Bytes(0));
}

void check_resources(const Scenario& scenario, const topo::Topology& topology,
                     const GuardParams& params) {
  topo::TopologySize size = size_of(scenario, topology);
  Bytes graph(params.costs.per_vertex * size.vertices + params.costs.per_graph_link * size.links);
  check(scenario, size, Footprint::simulation, params, graph);
}

} // namespace trainsim
