// scenarios/examples/: one short scenario per feature, each loaded, simulated and checked to
// use the feature it is named for, and listed in docs/scenario-format.md. (The writer's round
// trip, ScenarioWriter.EveryShippedScenarioReadsBackAsItself, reads every file of scenarios/.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tools/io/scenario_loader.hpp"
#include "tools/study/evaluate.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

const fs::path kExamples = TRAINSIM_SOURCE_DIR "/scenarios/examples";

struct Example {
  std::string file;
  std::function<bool(const Scenario&)> uses; ///< whether the loaded scenario has its feature
};

// What gtest prints for a parameter (ctest's test list, a failure's header): the file.
void PrintTo(const Example& example, std::ostream* out) { *out << example.file; }

const std::vector<Example>& examples() {
  static const std::vector<Example> all{
      {"tp-2d.yaml", [](const Scenario& s) { return s.execution.tp_2d > 1; }},
      {"experts.yaml", [](const Scenario& s) { return s.execution.ep > 1 && s.model.experts > 1; }},
      {"expert-tensor-parallel.yaml",
       [](const Scenario& s) { return s.execution.etp > 1 && s.execution.etp < s.execution.tp; }},
      {"moe-shapes.yaml",
       [](const Scenario& s) {
         return s.model.moe_d_ff > 0 && s.model.shared_experts > 0 && s.model.dense_layers > 0;
       }},
      {"moe-dispatch.yaml",
       [](const Scenario& s) {
         return s.execution.moe_dispatcher == MoeDispatcher::allgather &&
                s.execution.moe_pad_to_capacity && s.model.router_fp32;
       }},
      {"latent-attention.yaml", [](const Scenario& s) { return s.model.mla.on(); }},
      {"recompute-modules.yaml",
       [](const Scenario& s) { return modules_of(s.execution.recompute_modules).size() == 5; }},
      {"context-parallel.yaml", [](const Scenario& s) { return s.execution.cp > 1; }},
      {"zero3.yaml", [](const Scenario& s) { return s.execution.zero == 3; }},
      {"delayed-update.yaml", [](const Scenario& s) { return s.execution.delayed_update; }},
      {"tp-overlap.yaml", [](const Scenario& s) { return s.execution.tp_overlap; }},
      {"head-width.yaml",
       [](const Scenario& s) {
         return s.model.head_dim * s.model.heads > s.model.d_model && s.model.qk_norm;
       }},
      {"uneven-stages.yaml",
       [](const Scenario& s) {
         return s.execution.first_stage_layers > 0 && s.execution.last_stage_layers > 0;
       }},
      {"pipeline-layout.yaml",
       [](const Scenario& s) {
         return !s.execution.pipeline_layout.empty() && s.execution.ep_overlap &&
                s.model.mtp_layers > 0;
       }},
      {"dualpipev.yaml",
       [](const Scenario& s) {
         return s.execution.schedule == PipelineSchedule::dualpipev && s.execution.ep_overlap;
       }},
      {"degraded-link.yaml", [](const Scenario& s) { return s.faults.degraded_links.size() == 1; }},
      {"failed-spine.yaml", [](const Scenario& s) { return s.faults.failed.size() == 1; }},
      {"reliability.yaml", [](const Scenario& s) { return s.reliability.restart > Seconds(); }},
      {"slow-node.yaml", [](const Scenario& s) { return s.faults.slow_gpus.size() == 2; }},
      {"speed-spread.yaml", [](const Scenario& s) { return s.system.gpu.speed_spread > 0; }},
      {"microbatch-groups.yaml",
       [](const Scenario& s) {
         return s.execution.schedule == PipelineSchedule::interleaved &&
                s.execution.microbatch_group > s.execution.pp;
       }},
      {"fabric-fat-tree.yaml",
       [](const Scenario& s) { return s.system.topology.generator == "fat-tree"; }},
      {"fabric-rail-optimized.yaml",
       [](const Scenario& s) { return s.system.topology.generator == "rail-optimized"; }},
      {"fabric-dgx-h100.yaml",
       [](const Scenario& s) { return s.system.topology.generator == "dgx-h100"; }},
      {"fabric-nvl72.yaml",
       [](const Scenario& s) { return s.system.topology.generator == "nvl72"; }},
      {"fabric-dragonfly.yaml",
       [](const Scenario& s) { return s.system.topology.generator == "dragonfly"; }},
      {"fabric-torus.yaml",
       [](const Scenario& s) { return s.system.topology.generator == "torus"; }},
      {"fabric-imported.yaml",
       [](const Scenario& s) { return s.system.topology.generator == "file"; }},
  };
  return all;
}

std::string text_of(const fs::path& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

class ExampleTest : public testing::TestWithParam<Example> {};

// Loaded as a user's file is, its feature on, simulated in fast mode, at or above the bound.
TEST_P(ExampleTest, RunsAndUsesItsFeature) {
  LoadedScenario loaded = load_scenario((kExamples / GetParam().file).string());
  EXPECT_TRUE(GetParam().uses(loaded.scenario));
  Evaluation e = evaluate(loaded, {.fidelity = sim::Fidelity::fast});
  double step = e.result.step_time.value();
  EXPECT_GT(step, 0.0);
  EXPECT_GE(step, e.bound.step_time.value() * (1.0 - 1e-6));
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleTest, testing::ValuesIn(examples()),
                         [](const testing::TestParamInfo<Example>& param_info) {
                           std::string name = fs::path(param_info.param.file).stem().string();
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// Every file of the folder has its row above (so none goes untested), and the format's
// documentation names each.
TEST(Examples, EveryFileIsTestedAndDocumented) {
  std::set<std::string> listed, present;
  for (const Example& e : examples()) listed.insert(e.file);
  for (const auto& entry : fs::directory_iterator(kExamples))
    if (entry.path().extension() == ".yaml") present.insert(entry.path().filename().string());
  EXPECT_EQ(present, listed);
  std::string docs = text_of(TRAINSIM_SOURCE_DIR "/docs/scenario-format.md");
  for (const std::string& file : present)
    EXPECT_NE(docs.find("scenarios/examples/" + file), std::string::npos) << file;
}

} // namespace
} // namespace trainsim
