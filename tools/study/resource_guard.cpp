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
#include "models/step_program.hpp"
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

// The pipeline schedule's longest path (models/pipeline_path.cpp), which bounds and run both
// compute: every stage's pass order and the end time of each pass. The child also makes each
// stage's order once more while it builds the programs, and the programs themselves; a vector
// grown by push_back may hold twice its size.
Bytes program_bytes(const Scenario& s, Footprint footprint) {
  const ExecutionSpec& e = s.execution;
  double passes = 2.0 * static_cast<double>(e.microbatches()) * e.chunks(); // per stage
  double walk = e.pp * passes * (sizeof(PipelineOp) + sizeof(double));
  if (footprint != Footprint::simulation) return Bytes(walk);
  ProgramSize ops = program_size(s);
  double programs = 2.0 * (ops.fine + e.pp * ops.folded) * sizeof(Op);
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
  if (footprint == Footprint::simulation && rails > 1) {
    double own = static_cast<double>(costs.own_rails) / rails, running = 1.0 / rails + own;
    double per_gpu = costs.per_gpu_bundled + (costs.per_gpu - costs.per_gpu_bundled) * own;
    graph += per_gpu * size.gpus +
             (costs.per_graph_link + (costs.per_link - costs.per_graph_link) * running) * size.links;
  } else if (footprint == Footprint::simulation)
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
