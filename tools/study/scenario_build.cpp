#include "tools/study/scenario_build.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <optional>
#include <variant>

#include "models/plausibility.hpp"
#include "models/scenario_rules.hpp"
#include "sim/log.hpp"
#include "tools/study/link_faults.hpp"
#include "topologies/spec.hpp"

namespace trainsim {
namespace {

// The link figures the section gave, typed by the spec (the defaults are real machines'), with
// their text as written. Alphabetical, as the section lists its keys, whatever order the
// generator reads them in.
void warn_implausible_links(const topo::TopologySpec& topology, const std::string& file) {
  std::vector<topo::TopologySetting> settings = topo::topology_settings(topology);
  std::sort(settings.begin(), settings.end(),
            [](const auto& a, const auto& b) { return a.key < b.key; });
  for (const topo::TopologySetting& s : settings) {
    if (!s.given) continue;
    std::string problem;
    if (const auto* bandwidth = std::get_if<BytesPerSecond>(&s.quantity))
      problem = implausibility(Plausible::link_bandwidth, bandwidth->value());
    if (const auto* latency = std::get_if<Seconds>(&s.quantity))
      problem = implausibility(Plausible::link_latency, latency->value());
    if (!problem.empty())
      logger("trainsim.input")
          ->warn("{}: system.topology.{} = '{}': {}; using it anyway", file, s.key, s.text,
                 problem);
  }
}

// The guard's estimate can be wrong, and TRAINSIM_FORCE skips it: running out of memory
// while building is still a refusal, not an internal error.
topo::Topology build(const Scenario& s, const std::optional<topo::TopologySize>& size) {
  try {
    return topo::build_topology(s.system.topology);
  } catch (const std::bad_alloc&) {
    std::string counts = size ? " of " + std::to_string(std::lround(size->vertices)) +
                                    " vertices and " + std::to_string(std::lround(size->links)) +
                                    " links"
                              : "";
    throw Error(ExitCode::resources, s.file + ": ran out of memory building the topology" + counts +
                                         " (describe a smaller fabric: fewer nodes)");
  }
}

} // namespace

LoadedScenario build_unguarded(Scenario s, bool force_memory, const BeforeBuild& before_build) {
  std::optional<topo::TopologySize> size = topo::topology_size(s.system.topology);
  warn_implausible_links(s.system.topology, s.file);
  check_scenario(s, size ? std::optional<double>(size->gpus) : std::nullopt,
                 force_memory ? Memory::price_anyway : Memory::must_fit);
  if (std::string why = over_capacity(s); force_memory && !why.empty())
    logger("trainsim.input")
        ->warn("{}: system.gpu.hbm_capacity = '{}': {}; priced anyway (--force-memory)", s.file,
               format(s.system.gpu.hbm_capacity), why);
  if (size && before_build) before_build(s, *size);
  topo::Topology topology = build(s, size);
  check_gpu_total(s, topology.gpu_count());
  apply_link_faults(s, topology);
  return {std::move(s), std::move(topology)};
}

} // namespace trainsim
