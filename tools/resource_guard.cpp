#include "tools/resource_guard.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#include <boost/graph/adjacency_list.hpp>

#include "models/error.hpp"

namespace trainsim {
namespace {

// GiB, the unit free(1) and most machine specs use; MiB below one GiB so small numbers stay readable.
std::string binary_size(Bytes b) {
  char text[32];
  if (b.value() >= 1073741824.0) std::snprintf(text, sizeof text, "%.1f GiB", b.value() / 1073741824.0);
  else std::snprintf(text, sizeof text, "%.0f MiB", b.value() / 1048576.0);
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

std::string refusal(const Scenario& scenario, const MemoryEstimate& need, Bytes available) {
  return scenario.file + ": needs about " + binary_size(need.total) + " for " + grouped(need.gpus) + " GPU actors and " +
         grouped(need.links) + " links; this machine has " + binary_size(available) +
         " available (simulate fewer GPUs: a smaller dp, fewer nodes; or set TRAINSIM_FORCE=1 to try anyway)";
}

} // namespace

MemoryEstimate estimate_memory(const Scenario& scenario, const topo::Topology& topology, const MemoryCosts& costs) {
  MemoryEstimate e;
  e.gpus = scenario.execution.gpus();
  e.links = topology.link_count();
  auto vertices = static_cast<double>(boost::num_vertices(topology.graph()));
  e.total = Bytes(costs.fixed + costs.per_gpu * static_cast<double>(e.gpus) +
                  costs.per_link * static_cast<double>(e.links) + costs.per_vertex * vertices);
  return e;
}

std::optional<Bytes> available_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    double kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return Bytes(kib * 1024.0);
  }
  return std::nullopt;
}

void check_resources(const Scenario& scenario, const topo::Topology& topology, const GuardParams& params) {
  if (params.force || forced_by_environment()) return;
  std::optional<Bytes> available = params.available ? params.available : available_memory();
  if (!available) return; // not Linux, or /proc hidden: better to try than to refuse blindly
  MemoryEstimate need = estimate_memory(scenario, topology, params.costs);
  if (need.total > *available * params.usable_fraction)
    throw Error(ExitCode::resources, refusal(scenario, need, *available));
}

} // namespace trainsim
