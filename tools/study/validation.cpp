// Runs the validation sections in order (tools/study/validation.hpp).
#include "tools/study/validation.hpp"

#include <chrono>
#include <cstdio>

#include "models/units.hpp"
#include "sim/log.hpp"
#include "sim/progress.hpp"
#include "tools/io/data_dir.hpp"

namespace trainsim {
namespace {

// One line on stderr as each section starts, with the time so far: the full suite runs for over
// an hour (docs/performance.md), and a silent hour reads as a hang.
class Sections {
public:
  explicit Sections(bool quick) : quick_(quick), started_(std::chrono::steady_clock::now()) {}
  void start(const char* name) {
    auto elapsed = std::chrono::steady_clock::now() - started_;
    std::fprintf(stderr, "validate: [%d/%d] %s (after %s)\n", ++done_, quick_ ? 5 : 6, name,
                 sim::wait_text(std::chrono::duration<double>(elapsed).count()).c_str());
  }

private:
  bool quick_;
  std::chrono::steady_clock::time_point started_;
  int done_ = 0;
};

} // namespace

ValidationReport run_validation(const ValidateOptions& options) {
  auto started = std::chrono::steady_clock::now();
  ValidationReport r;
  r.options = options;
  if (r.options.scenarios_dir.empty())
    r.options.scenarios_dir = find_scenarios_dir("or give --scenarios DIR").string();
  Sections sections(options.quick);
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
  sections.start("fast against fine mode");
  r.fidelity = fidelity_checks(r.options);
  if (!options.quick) {
    sections.start("frontier replays (most of the suite's time)");
    r.frontier = frontier_checks(false, r.skipped);
  } else {
    r.skipped.push_back("quick mode: the other published runs and the frontier points are run by "
                        "the full suite only");
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

} // namespace trainsim
