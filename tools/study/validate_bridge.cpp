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
#include "tools/study/validation.hpp"
#include "tools/study/validation_children.hpp"
#include "tools/study/validate_scenarios.hpp"

namespace trainsim {
namespace {

// One published figure: a table row (or its figures in parentheses, the FP8-MX run) of one
// release. Several releases' rows of the same configuration replay the same file.
struct BridgeRow {
  const char* file; ///< under scenarios/validation/
  const char* release;
  const char* system;
  const char* workload;
  double tokens; ///< tokens / s / GPU as published
  bool dense = true;
  bool quick = false;       ///< replayed by validate --quick too
  bool paper_scale = false; ///< replayed only with --paper-scale (minutes of CPU alone)
};

// docs/performance-summary.md at NVIDIA-NeMo/Megatron-Bridge commit 5776a6d90b4d (2025-12-10),
// which holds the 25.11 container's tables and the 25.09 container's below them.
std::vector<BridgeRow> bridge_rows() {
  return {
      {"mbridge-gb300-llama3-8b-fp8cs", "25.11", "DGX-GB300", "Llama 3 8B FP8-CS", 37556},
      {"mbridge-gb300-llama3-8b-mxfp8", "25.11", "DGX-GB300", "Llama 3 8B FP8-MX", 36108},
      {"mbridge-gb300-llama3-70b-fp8cs-fsdp", "25.11", "DGX-GB300", "Llama 3 70B FP8-CS", 4520},
      {"mbridge-gb300-llama31-405b-fp8cs", "25.11", "DGX-GB300", "Llama 3.1 405B FP8-CS", 999},
      {"mbridge-gb200-llama3-8b-fp8cs", "25.11", "DGX-GB200", "Llama 3 8B FP8-CS", 31508},
      {"mbridge-gb200-llama3-8b-mxfp8", "25.11", "DGX-GB200", "Llama 3 8B FP8-MX", 29789},
      {"mbridge-gb200-llama3-70b-fp8cs-fsdp", "25.11", "DGX-GB200", "Llama 3 70B FP8-CS", 4312},
      {"mbridge-gb200-llama31-405b-fp8cs", "25.11", "DGX-GB200", "Llama 3.1 405B FP8-CS", 813},
      {"mbridge-b200-llama3-8b-fp8cs", "25.11", "DGX-B200", "Llama 3 8B FP8-CS", 30624, true, true},
      {"mbridge-b200-llama3-8b-mxfp8", "25.11", "DGX-B200", "Llama 3 8B FP8-MX", 29521},
      {"mbridge-b200-llama31-405b-fp8cs", "25.11", "DGX-B200", "Llama 3.1 405B FP8-CS", 661},
      {"mbridge-b200-llama31-405b-mxfp8", "25.11", "DGX-B200", "Llama 3.1 405B FP8-MX", 624},
      {"mbridge-h100-llama3-8b-fp8cs-fsdp", "25.11", "DGX-H100", "Llama 3 8B FP8-CS", 14451, true,
       true},
      {"mbridge-h100-llama3-70b-fp8cs", "25.11", "DGX-H100", "Llama 3 70B FP8-CS", 1602},
      {"mbridge-h100-llama31-405b-fp8cs", "25.11", "DGX-H100", "Llama 3.1 405B FP8-CS", 292},
      {"mbridge-gb200-llama3-8b-fp8cs", "25.09", "DGX-GB200", "Llama 3 8B FP8-CS", 31357},
      {"mbridge-gb200-llama3-8b-mxfp8", "25.09", "DGX-GB200", "Llama 3 8B FP8-MX", 29925},
      {"mbridge-gb200-llama3-70b-fp8cs-fsdp-gbs128", "25.09", "DGX-GB200", "Llama 3 70B FP8-CS",
       3986},
      {"mbridge-gb200-llama3-70b-mxfp8", "25.09", "DGX-GB200", "Llama 3 70B FP8-MX", 3546},
      {"mbridge-gb200-llama31-405b-fp8cs-fsdp", "25.09", "DGX-GB200", "Llama 3.1 405B FP8-CS", 729},
      {"mbridge-gb200-llama31-405b-mxfp8", "25.09", "DGX-GB200", "Llama 3.1 405B FP8-MX", 578},
      {"mbridge-b200-llama3-8b-fp8cs", "25.09", "DGX-B200", "Llama 3 8B FP8-CS", 29994},
      {"mbridge-b200-llama3-8b-mxfp8", "25.09", "DGX-B200", "Llama 3 8B FP8-MX", 29388},
      {"mbridge-b200-llama31-405b-fp8cs", "25.09", "DGX-B200", "Llama 3.1 405B FP8-CS", 664},
      {"mbridge-b200-llama31-405b-mxfp8-overlapped-gather", "25.09", "DGX-B200",
       "Llama 3.1 405B FP8-MX", 622},
      {"mbridge-h100-llama3-8b-fp8cs-fsdp", "25.09", "DGX-H100", "Llama 3 8B FP8-CS", 14079},
      {"mbridge-h100-llama3-70b-fp8cs", "25.09", "DGX-H100", "Llama 3 70B FP8-CS", 1619},
      {"mbridge-h100-llama31-405b-fp8cs", "25.09", "DGX-H100", "Llama 3.1 405B FP8-CS", 302},
      // The MoE rows of 25.11 (25.09's give no precision for their plain figures and drop
      // tokens, which trainsim does not model: not replayed).
      {"mbridge-gb300-deepseek-v3-bf16", "25.11", "DGX-GB300", "DeepSeek-V3 (w/o MTP) BF16", 3848,
       false},
      {"mbridge-gb300-deepseek-v3-mxfp8", "25.11", "DGX-GB300", "DeepSeek-V3 (w/o MTP) FP8-MX",
       4357, false},
      {"mbridge-gb300-gpt-oss-120b-bf16", "25.11", "DGX-GB300", "GPT-OSS 120B BF16", 18347, false},
      {"mbridge-gb300-qwen3-30b-a3b-mxfp8", "25.11", "DGX-GB300", "Qwen3 30B-A3B FP8-MX", 28934,
       false},
      {"mbridge-gb300-qwen3-235b-a22b-bf16", "25.11", "DGX-GB300", "Qwen3 235B-A22B BF16", 6131,
       false},
      {"mbridge-gb200-deepseek-v3-bf16", "25.11", "DGX-GB200", "DeepSeek-V3 (w/o MTP) BF16", 3139,
       false},
      {"mbridge-gb200-deepseek-v3-mxfp8", "25.11", "DGX-GB200", "DeepSeek-V3 (w/o MTP) FP8-MX",
       4018, false},
      {"mbridge-gb200-gpt-oss-120b-bf16", "25.11", "DGX-GB200", "GPT-OSS 120B BF16", 15876, false},
      {"mbridge-gb200-qwen3-30b-a3b-mxfp8", "25.11", "DGX-GB200", "Qwen3 30B-A3B FP8-MX", 23766,
       false},
      {"mbridge-gb200-qwen3-235b-a22b-bf16", "25.11", "DGX-GB200", "Qwen3 235B-A22B BF16", 4916,
       false},
      {"mbridge-b200-deepseek-v3-mxfp8-mtp", "25.11", "DGX-B200", "DeepSeek-V3 (w/ MTP) FP8-MX",
       2139, false},
      {"mbridge-b200-gpt-oss-120b-bf16", "25.11", "DGX-B200", "GPT-OSS 120B BF16", 8213, false},
      {"mbridge-b200-qwen3-30b-a3b-mxfp8", "25.11", "DGX-B200", "Qwen3 30B-A3B FP8-MX", 9299,
       false},
      {"mbridge-b200-qwen3-235b-a22b-mxfp8", "25.11", "DGX-B200", "Qwen3 235B-A22B FP8-MX", 3269,
       false},
      {"mbridge-h100-gpt-oss-120b-bf16", "25.11", "DGX-H100", "GPT-OSS 120B BF16", 5630, false},
      {"mbridge-h100-qwen3-30b-a3b-fp8cs", "25.11", "DGX-H100", "Qwen3 30B-A3B FP8-CS", 5275,
       false},
      {"mbridge-h100-qwen3-235b-a22b-fp8cs", "25.11", "DGX-H100", "Qwen3 235B-A22B FP8-CS", 1575,
       false},
      // Not Megatron-Bridge's: DeepSeek-V3's own pre-training on its own framework (arXiv
      // 2412.19437, Table 1: 180K H800 GPU hours a trillion tokens, 1e12 / (180e3 x 3600)).
      // 2,048 GPUs and 120 microbatches of all-to-alls across 8 nodes: 9.3 CPU minutes alone.
      {"deepseek-v3-h800-report", "report", "2048 H800", "DeepSeek-V3 (w/ MTP) FP8 blockwise",
       1e12 / (180e3 * 3600.0), false, false, true},
  };
}

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
