// Section 4b of docs/validation.md: Megatron-Bridge's rows, published against simulated.
#include "tools/formats/validation_bridge.hpp"

#include <algorithm>

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

// One release's rows of a kind: "26.08 12.3% (8)", or nothing where it has none.
std::string release_errors(const std::vector<BridgeCheck>& rows, const std::string& release,
                           bool dense) {
  PublishedErrors e = errors_over(
      rows, [&](const BridgeCheck& c) { return c.dense == dense && c.release == release; },
      [](const BridgeCheck& c) { return c.name; });
  if (e.runs == 0) return "";
  return release + " " + formatted("%.1f%%", 100 * e.mean) + " (" + std::to_string(e.runs) + ")";
}

// How each release's rows come out: the same hardware, layouts and models, software that
// changed from release to release.
std::string by_release(const std::vector<BridgeCheck>& rows) {
  std::vector<std::string> releases;
  for (const BridgeCheck& c : rows)
    if (std::find(releases.begin(), releases.end(), c.release) == releases.end())
      releases.push_back(c.release);
  std::string out;
  for (bool dense : {true, false}) {
    std::string line;
    for (const std::string& release : releases)
      if (std::string one = release_errors(rows, release, dense); !one.empty())
        line += (line.empty() ? "" : ", ") + one;
    if (!line.empty())
      out += std::string(dense ? "Dense" : "MoE") +
             " rows by release, mean absolute error (rows): " + line + ".\n\n";
  }
  return out;
}

} // namespace

std::string bridge_section(const ValidationReport& r) {
  if (r.bridge.empty()) return "";
  std::string out =
      "## 4b. Today's stack: Megatron-Bridge's published tables\n\n"
      "NVIDIA's Megatron-Bridge publishes each release's pre-training throughput "
      "(NVIDIA-NeMo/Megatron-Bridge, docs/performance-summary.md: the 25.09 and 25.11 NeMo "
      "containers' tables at commit 5776a6d90b4d; 26.02 to 26.08's, that file and its archive "
      "at 067f987df). Each row is a scenario in scenarios/validation/ whose header quotes it, "
      "names the commit its recipe was read at and every assumption; rows of one configuration "
      "in several releases replay the same file, so the releases' differences are the "
      "software's. Not replayed: NVFP4 rows (no such precision here), and models trainsim "
      "cannot write down (Nemotron 3's hybrid Mamba layers, DeepSeek V4). Tokens per second per "
      "GPU are compared (the tables' model "
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
  return out + "\n" + errors_line(r.bridge, true) + errors_line(r.bridge, false) +
         by_release(r.bridge);
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
