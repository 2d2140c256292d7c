#include "tools/io/scenario_checks.hpp"

#include <cstdio>

#include "models/error.hpp"
#include "models/workload.hpp"

namespace trainsim {
namespace {

std::string grid_of(const ExecutionSpec& e) {
  return std::to_string(e.dp) + " x " + std::to_string(e.tp) + " x " + std::to_string(e.pp);
}

std::string whole(double n) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", n);
  return text;
}

} // namespace

void check_gpu_total(const ExecutionSpec& e, double topology_gpus, const std::string& file) {
  double grid = static_cast<double>(e.dp) * e.tp * e.pp; // e.gpus() overflows an int first
  if (grid == topology_gpus) return;
  throw InputError(file, "execution.dp x tp x pp", grid_of(e) + " = " + whole(grid),
                   "must equal the topology's " + whole(topology_gpus) + " GPUs");
}

void check_fit(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  const std::string& file = s.file;
  if (e.pp > s.model.layers)
    throw InputError(file, "execution.pp", std::to_string(e.pp),
                     "exceeds the model's " + std::to_string(s.model.layers) + " layers");
  if (e.schedule == PipelineSchedule::interleaved && s.model.layers % (e.pp * e.interleave) != 0)
    throw InputError(file, "execution.interleave", std::to_string(e.interleave),
                     "pp x interleave = " + std::to_string(e.pp * e.interleave) + " must divide the model's " +
                         std::to_string(s.model.layers) + " layers");
  if (s.model.experts % e.ep != 0)
    throw InputError(file, "execution.ep", std::to_string(e.ep),
                     "must divide the model's " + std::to_string(s.model.experts) + " experts");
  if (s.model.kind == ModelKind::transformer && s.model.heads % e.tp != 0)
    throw InputError(file, "execution.tp", std::to_string(e.tp),
                     "must divide the model's " + std::to_string(s.model.heads) + " attention heads");
  MemoryUse use = memory_per_gpu(s.model, e);
  if (use.total() > s.system.gpu.hbm_capacity)
    throw InputError(file, "system.gpu.hbm_capacity", format(s.system.gpu.hbm_capacity),
                     "too small: dp x tp x pp = " + grid_of(e) + " needs " + format(use.total()) + " per GPU (weights " +
                         format(use.weights) + ", gradients " + format(use.gradients) + ", optimizer " +
                         format(use.optimizer) + ", activations " + format(use.activations) + ")");
}

} // namespace trainsim
