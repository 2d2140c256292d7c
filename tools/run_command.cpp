#include "tools/run_command.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <spdlog/spdlog.h>

#include "models/error.hpp"
#include "models/closed_form.hpp"
#include "tools/fabric_summary.hpp"
#include "tools/report.hpp"
#include "tools/resource_guard.hpp"
#include "tools/scenario_loader.hpp"

namespace trainsim {
namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path);
  out << text;
  out.close();
  if (ec || !out) throw Error(ExitCode::io, path.string() + ": cannot write the file");
}

} // namespace

std::string default_scenario_path() { return TRAINSIM_SOURCE_DIR "/scenarios/default.yaml"; }

int run_command(const RunOptions& options) {
  LoadedScenario loaded = load_scenario(options.scenario.empty() ? default_scenario_path() : options.scenario);
  const Scenario& s = loaded.scenario;
  spdlog::info("simulating {} GPUs, {} links", loaded.topology.gpu_count(), loaded.topology.link_count());
  check_resources(s, loaded.topology); // refuse now rather than be OOM-killed minutes later
  auto started = std::chrono::steady_clock::now();
  sim::SimResult result = sim::simulate(s, loaded.topology, {options.fidelity, true, options.link_stats});
  RunInfo info{options.fidelity == sim::Fidelity::fast ? "fast" : "fine",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
               result.counters.activities()};
  StepSummary summary = summarize(s, result);
  summary.tiers = summarize_links(loaded.topology, result.channel_bytes, result.step_time);
  BoundResult bound = closed_form_bound(s, fabric_summary(loaded.topology, s.execution));
  summary.bound = bound.step_time;
  summary.bound_limiting = bound.limiting;
  auto json = result_json(s, summary, info);
  if (!options.out_dir.empty()) write_file(std::filesystem::path(options.out_dir) / "result.json", json.dump(2) + "\n");
  if (options.json) std::cout << json.dump(2) << "\n";
  else print_report(std::cout, s, loaded.topology, summary, info);
  return 0;
}

} // namespace trainsim
