// Section 4b of docs/validation.md: NVIDIA Megatron-Bridge's published pre-training tables
// (docs/performance-summary.md), each row's tokens per second per GPU against the simulated
// step's. Every row is replayed with its GPU preset's constants; what each scenario assumes is
// in its file's header.
#include <algorithm>
#include <numeric>
#include <cmath>
#include <filesystem>

#include "sim/log.hpp"
#include "sim/progress.hpp"

#include "models/scenario_rules.hpp"
#include "models/workload.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tools/study/bridge_rows.hpp"
#include "tools/study/validation.hpp"
#include "tools/study/validation_children.hpp"
#include "tools/study/validate_scenarios.hpp"

namespace trainsim {
namespace {

// The row's file, loaded as published even where trainsim finds it over the GPU's memory (the
// runs offload activations to the host, which it does not model): the check says so.
LoadedScenario load_row(const std::string& name, const ValidateOptions& o) {
  auto input = logger("trainsim.input");
  auto level = input->level();
  input->set_level(spdlog::level::err); // the memory warning is the check's `memory`
  LoadOptions load;
  load.force_memory = true;
  std::filesystem::path file =
      std::filesystem::path(o.scenarios_dir) / "validation" / (name + ".yaml");
  LoadedScenario loaded = load_scenario(file.string(), load);
  input->set_level(level);
  return loaded;
}

BridgeCheck replay(const std::string& name, const LoadedScenario& loaded) {
  logger("trainsim.validate")->info("validate: Megatron-Bridge row {}", name);
  validation::Measured m = validation::measure(loaded, sim::Fidelity::fast, false);
  BridgeCheck c;
  c.name = name;
  c.gpus = loaded.scenario.execution.gpus();
  c.predicted = m.summary.tokens_per_s / c.gpus;
  c.step_s = m.result.step_time.value();
  c.bound_s = m.bound.step_time.value();
  c.breakdown = validation::shares(m.summary);
  c.memory = over_capacity(loaded.scenario);
  return c;
}

} // namespace

PublishedErrors bridge_errors(const std::vector<BridgeCheck>& rows, bool dense) {
  return errors_over(
      rows, [dense](const BridgeCheck& c) { return c.dense == dense; },
      [](const BridgeCheck& c) { return c.name + " (" + c.release + ")"; });
}

// Each scenario file is replayed once, for every release's row of its configuration.
std::vector<BridgeCheck> bridge_checks(const ValidateOptions& o) {
  std::vector<BridgeRow> rows;
  std::vector<std::string> files;
  for (const BridgeRow& row : bridge_rows()) {
    if ((o.quick && !row.quick) || (row.paper_scale && !o.paper_scale)) continue;
    rows.push_back(row);
    if (std::find(files.begin(), files.end(), row.file) == files.end()) files.push_back(row.file);
  }
  // Every file loaded here, once; the replays run in children that inherit them.
  std::vector<LoadedScenario> loaded;
  std::vector<double> weights;
  for (const std::string& file : files) {
    loaded.push_back(load_row(file, o));
    weights.push_back(validation::run_weight(loaded.back().scenario));
  }
  std::vector<std::function<BridgeCheck()>> tasks;
  for (size_t i = 0; i < files.size(); ++i)
    tasks.push_back([&, i] { return replay(files[i], loaded[i]); });
  sim::Progress progress("validate: Megatron-Bridge rows",
                         std::accumulate(weights.begin(), weights.end(), 0.0),
                         "their estimated ops");
  std::vector<BridgeCheck> replays = validation::side_by_side(tasks, progress, &weights);
  std::vector<BridgeCheck> out;
  for (const BridgeRow& row : rows) {
    auto at = std::find(files.begin(), files.end(), row.file) - files.begin();
    BridgeCheck c = replays[static_cast<size_t>(at)];
    c.release = row.release, c.system = row.system, c.workload = row.workload;
    c.dense = row.dense;
    c.published = row.tokens;
    out.push_back(std::move(c));
  }
  return out;
}

} // namespace trainsim
