#include "tools/formats/report_memory.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "models/workload.hpp"
#include "tools/formats/text.hpp"

namespace trainsim {
namespace {

void print_stage(std::ostream& out, int stage, const MemoryUse& use, Bytes capacity) {
  char line[64];
  std::snprintf(line, sizeof line, "    stage %-4d %10s  %6s   ", stage,
                format(use.total()).c_str(), percent(use.total() / capacity).c_str());
  out << line << memory_parts(use) << "\n";
}

} // namespace

void print_memory(std::ostream& out, const Scenario& s) {
  std::vector<MemoryUse> stages = memory_per_stage(s.model, s.execution, s.system.gpu);
  Bytes capacity = s.system.gpu.hbm_capacity;
  out << "  memory        per GPU, of " << format(capacity)
      << " HBM (the plan's state and peak activations)\n";
  auto by_total = [](const MemoryUse& a, const MemoryUse& b) { return a.total() < b.total(); };
  std::vector<int> shown;
  if (stages.size() <= 4) {
    for (int i = 0; i < static_cast<int>(stages.size()); ++i) shown.push_back(i);
  } else {
    auto most = std::max_element(stages.begin(), stages.end(), by_total);
    auto least = std::min_element(stages.begin(), stages.end(), by_total);
    shown = {static_cast<int>(most - stages.begin()), static_cast<int>(least - stages.begin())};
    out << "    (" << stages.size() << " stages: the most and the least loaded)\n";
  }
  for (int i : shown) print_stage(out, i, stages[static_cast<size_t>(i)], capacity);
}

nlohmann::ordered_json memory_json(const Scenario& s) {
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  int i = 0;
  for (const MemoryUse& use : memory_per_stage(s.model, s.execution, s.system.gpu))
    stages.push_back({{"stage", i++},
                      {"weights_bytes", use.weights.value()},
                      {"gradients_bytes", use.gradients.value()},
                      {"optimizer_bytes", use.optimizer.value()},
                      {"activations_bytes", use.activations.value()},
                      {"fp8_weight_copies_bytes", use.fp8_copies.value()},
                      {"total_bytes", use.total().value()}});
  return {{"capacity_bytes", s.system.gpu.hbm_capacity.value()}, {"stages", stages}};
}

} // namespace trainsim
