// Runs the validation sections in order (tools/study/validation.hpp).
#include "tools/study/validation.hpp"

#include <chrono>

#include "sim/log.hpp"
#include "tools/io/data_dir.hpp"

namespace trainsim {

ValidationReport run_validation(const ValidateOptions& options) {
  auto started = std::chrono::steady_clock::now();
  ValidationReport r;
  r.options = options;
  if (r.options.scenarios_dir.empty())
    r.options.scenarios_dir = find_scenarios_dir("or give --scenarios DIR").string();
  logger("trainsim.validate")->info("validate: exact cases");
  r.exact = exact_cases(options.quick);
  logger("trainsim.validate")->info("validate: the bound on every scenario");
  r.bounds = bound_checks(r.options, r.random_generated, r.random_rejected, r.bounds_not_run);
  logger("trainsim.validate")->info("validate: collectives");
  r.collectives = collective_checks(options.quick);
  logger("trainsim.validate")->info("validate: published runs");
  r.published = published_checks(r.options);
  r.layers = layer_checks();
  for (const PublishedCheck& p : r.published)
    r.bounds.push_back({"validation/" + p.name, "published run", p.gpus, p.step_s, p.bound_s, ""});
  if (!options.quick) {
    logger("trainsim.validate")->info("validate: frontier");
    r.frontier = frontier_checks(false, r.skipped);
  } else {
    r.skipped.push_back("quick mode: the other published runs and the frontier points are run by "
                        "the full suite only");
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

} // namespace trainsim
