// Section 4b of docs/validation.md: Megatron-Bridge's rows, published against simulated.
#include "tools/formats/validation_bridge.hpp"
#include "tools/formats/text.hpp"

namespace trainsim {
namespace {

std::string errors_line(const std::vector<BridgeCheck>& rows, bool dense) {
  PublishedErrors e = bridge_errors(rows, dense);
  if (e.runs == 0) return "";
  return std::string(dense ? "Dense rows" : "MoE rows") + " (" + std::to_string(e.runs) +
         "): mean absolute error **" + formatted("%.1f%%", 100 * e.mean) + "**, worst **" +
         formatted("%.1f%%", 100 * e.worst) + "** (" + e.worst_run + ").\n\n";
}

} // namespace

std::string bridge_section(const ValidationReport& r) {
  if (r.bridge.empty()) return "";
  std::string out =
      "## 4b. Today's stack: Megatron-Bridge's published tables\n\n"
      "NVIDIA's Megatron-Bridge publishes each release's pre-training throughput "
      "(NVIDIA-NeMo/Megatron-Bridge, docs/performance-summary.md at commit 5776a6d90b4d: the "
      "25.11 and 25.09 NeMo containers' tables). Each row is a scenario in scenarios/validation/ "
      "whose header quotes it and names every assumption; rows of one configuration in both "
      "releases replay the same file. Tokens per second per GPU are compared (the tables' model "
      "TFLOP/s count FLOP their own way). Every GPU is priced by its preset's constants, none "
      "fitted to a row. Where trainsim finds the plan over the GPU's memory (the runs offload "
      "activations to the host, which is not modelled) the row is replayed as published and the "
      "memory column says so. The verdict judges the dense rows; the MoE rows are reported. "
      "The row of release \"report\" is not Megatron-Bridge's: DeepSeek-V3's own pre-training "
      "(DeepSeek-AI, arXiv:2412.19437, Table 1: 180K H800 GPU hours per trillion tokens), "
      "replayed without the DualPipe schedule that hid its all-to-alls (its file says why), and "
      "only by `trainsim validate --paper-scale`.\n\n" +
      markdown_header({"scenario", "release", "system", "workload", "GPUs", "published",
                       "simulated", "error", "step (s)", "simulated breakdown", "memory"});
  for (const BridgeCheck& c : r.bridge)
    out += markdown_row({c.name, c.release, c.system, c.workload, std::to_string(c.gpus),
                         formatted("%.0f", c.published), formatted("%.0f", c.predicted),
                         signed_percent(c.error()), formatted("%.2f", c.step_s), c.breakdown,
                         c.memory.empty() ? "fits" : c.memory});
  return out + "\n" + errors_line(r.bridge, true) + errors_line(r.bridge, false);
}

nlohmann::ordered_json bridge_json(const ValidationReport& r) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const BridgeCheck& c : r.bridge)
    rows.push_back({{"scenario", c.name},
                    {"release", c.release},
                    {"system", c.system},
                    {"workload", c.workload},
                    {"gpus", c.gpus},
                    {"dense", c.dense},
                    {"published_tokens_per_s_per_gpu", c.published},
                    {"predicted_tokens_per_s_per_gpu", c.predicted},
                    {"error", c.error()},
                    {"step_s", c.step_s},
                    {"bound_s", c.bound_s},
                    {"breakdown", c.breakdown},
                    {"memory", c.memory}});
  return rows;
}

} // namespace trainsim
