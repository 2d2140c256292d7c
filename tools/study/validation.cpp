// Runs the validation sections in order (tools/study/validation.hpp).
#include "tools/study/validation.hpp"

#include <chrono>
#include <cstdio>
#include <string>

#include "models/units.hpp"
#include "sim/log.hpp"
#include "sim/progress.hpp"
#include "tools/io/data_dir.hpp"

namespace trainsim {
namespace {

// One line on stderr as each section starts, with the time so far (a silent quarter of an
// hour reads as a hang), and each section's wall time for the report.
class Sections {
public:
  Sections(bool quick, ValidationReport& report)
      : quick_(quick), report_(report), started_(std::chrono::steady_clock::now()),
        section_started_(started_) {}
  void start(const char* name) {
    end_section();
    name_ = name;
    std::fprintf(stderr, "validate: [%d/%d] %s (after %s)\n", ++done_, quick_ ? 6 : 7, name,
                 sim::wait_text(seconds_since(started_)).c_str());
  }
  void end_section() {
    if (!name_.empty()) report_.section_wall_s.emplace_back(name_, seconds_since(section_started_));
    section_started_ = std::chrono::steady_clock::now();
  }

private:
  static double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
  bool quick_;
  ValidationReport& report_;
  std::chrono::steady_clock::time_point started_, section_started_;
  std::string name_;
  int done_ = 0;
};

} // namespace

ValidationReport run_validation(const ValidateOptions& options) {
  auto started = std::chrono::steady_clock::now();
  ValidationReport r;
  r.options = options;
  if (r.options.scenarios_dir.empty())
    r.options.scenarios_dir = find_scenarios_dir("or give --scenarios DIR").string();
  Sections sections(options.quick, r);
  sections.start("exact cases");
  r.exact = exact_cases(options.quick);
  sections.start("the bound on every scenario");
  r.bounds = bound_checks(r.options, r.random_generated, r.random_rejected, r.bounds_not_run);
  sections.start("collectives");
  r.collectives = collective_checks(options.quick);
  sections.start(options.quick ? "published runs (the cheapest)" : "published runs");
  r.published = published_checks(r.options);
  r.layers = layer_checks();
  for (const PublishedCheck& p : r.published)
    r.bounds.push_back({"validation/" + p.name, "published run", p.gpus, p.step_s, p.bound_s, ""});
  sections.start(options.quick ? "Megatron-Bridge rows (two)" : "Megatron-Bridge rows");
  r.bridge = bridge_checks(r.options);
  for (const BridgeCheck& b : r.bridge)
    r.bounds.push_back(
        {"validation/" + b.name, "Megatron-Bridge row", b.gpus, b.step_s, b.bound_s, ""});
  sections.start("fast against fine mode");
  r.fidelity = fidelity_checks(r.options);
  if (!options.quick) {
    sections.start(options.paper_scale ? "frontier replays, to paper scale" : "frontier replays");
    r.frontier = frontier_checks(false, options.paper_scale, r.skipped);
  } else {
    r.skipped.push_back("quick mode: the other published runs and the frontier points are run by "
                        "the full suite only");
  }
  sections.end_section();
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

} // namespace trainsim
