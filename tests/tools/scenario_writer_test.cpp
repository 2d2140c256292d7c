// A Scenario value written as a file reads back as the same value (tools/io/scenario_writer),
// and `trainsim frontier --scenarios` writes points that `trainsim run` replays.
#include "tools/io/scenario_writer.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/check.hpp"
#include "models/frontier.hpp"
#include "tests/tools/cli_fixtures.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tools/io/provenance.hpp"
#include "tools/io/scenario_loader.hpp"

namespace trainsim {
namespace {

// The resolved scenario, every key with its value: equal when the two values are the same.
nlohmann::ordered_json resolved(const Scenario& s) { return provenance_json(s).at("scenario"); }

Scenario read_back(const std::string& text) {
  return ScenarioTree::parse(text, "written.yaml").read();
}

std::string file_text(const std::filesystem::path& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

TEST(ScenarioWriter, AFrontierPointReadsBackAsTheSameScenario) {
  FrontierPoint point = frontier_point(Flop(1e24), FrontierOptions{}, false);
  Scenario s = frontier_scenario(point, resolve_hardware(FrontierOptions{}));
  std::string text = scenario_yaml(s, "first line\nsecond line");
  EXPECT_EQ(text.rfind("# first line\n# second line\nmodel:\n", 0), 0u) << text;
  EXPECT_EQ(resolved(read_back(text)), resolved(s)) << text;
}

TEST(ScenarioWriter, EveryShippedScenarioReadsBackAsItself) {
  // Transformers, GPU overrides, every generator and execution key the suite uses: the
  // loader's value, written and read again, is the same value.
  int files = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(TRAINSIM_SOURCE_DIR "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    Scenario s = ScenarioTree::parse(file_text(entry.path()), entry.path().string()).read();
    EXPECT_EQ(resolved(read_back(scenario_yaml(s))), resolved(s)) << entry.path();
    ++files;
  }
  EXPECT_GT(files, 20);
}

TEST(ScenarioWriter, KeysNoShippedScenarioSetsReadBackToo) {
  // The shipped scenarios leave these at their defaults, so the round trip above never sees
  // them written: each set here to a value other than its default.
  Scenario s =
      ScenarioTree::parse(file_text(TRAINSIM_SOURCE_DIR "/scenarios/default.yaml"), "default.yaml")
          .read();
  ExecutionSpec& e = s.execution;
  e.tp_2d = 2;
  e.ep = 4;
  e.cp = 2;
  e.delayed_update = true;
  e.param_gather_overlap = true;
  e.zero3_prefetch = true;
  e.tp_overlap = true;
  e.tp_overlap_splits = 8;
  e.launch_overlap = true;
  e.schedule = PipelineSchedule::interleaved;
  e.interleave = 2;
  e.microbatch_group = 4;
  e.first_stage_layers = 14;
  e.last_stage_layers = 18;
  e.fp32_gradients = true;
  e.recompute = Recompute::full, e.recompute_layers = 2;
  e.grad_accumulation_fusion = false;
  e.dp_bucket = Bytes(25e6);
  e.tp_collective = "pat";
  e.ep_collective = "direct";
  s.system.gpu.speed_spread = 0.05;
  s.model.experts = 8;
  s.model.top_k = 2;
  s.model.moe_d_ff = 1024;
  s.model.shared_experts = 1;
  s.model.dense_layers = 1;
  s.model.vocab = 32000, s.model.mtp_layers = 1;
  s.model.head_dim = 64;
  s.model.qk_norm = true;
  s.model.attention = AttentionKernel::cudnn;
  std::string text = scenario_yaml(s);
  EXPECT_EQ(resolved(read_back(text)), resolved(s)) << text;
  s.model.head_dim = 0, s.model.qk_norm = false; // latent attention has widths of its own
  s.model.mla = {1536, 512, 64, 128, 128};
  s.model.window = 128, s.model.full_attention_every = 2, s.model.attention_sinks = true;
  s.model.profile.optimizer_step = false;
  s.model.profile.nvlink_curve = false;
  text = scenario_yaml(s);
  EXPECT_EQ(resolved(read_back(text)), resolved(s)) << text;
  e.recompute_layers = 0, e.recompute_every = 3; // the two say the same thing: one at a time
  text = scenario_yaml(s);
  EXPECT_EQ(resolved(read_back(text)), resolved(s)) << text;
  e.first_stage_layers = e.last_stage_layers = 0; // a written layout instead, as written
  e.pipeline_layout = parse_pipeline_layout("Et*4|(t*4, |)*6 tttmL").layout;
  text = scenario_yaml(s);
  EXPECT_EQ(resolved(read_back(text)), resolved(s)) << text;
  EXPECT_NE(text.find("pipeline_layout: Et*4|(t*4, |)*6 tttmL"), std::string::npos) << text;
}

TEST(ScenarioWriter, EveryGpuFigureReadsBack) {
  // Each figure of models/gpu_keys.cpp set over a preset, then a GPU given figure by figure
  // with one attention rate: both are written and read back as themselves.
  auto round_trip = [](const std::string& gpu) {
    Scenario s = ScenarioTree::parse(
                     "model: {kind: transformer, layers: 2, d_model: 1024, d_ff: 4096, heads: 8, "
                     "seq_len: 1024}\nsystem:\n  gpu: " +
                         gpu +
                         "\n  topology: {generator: fat-tree, nodes: 1}\nexecution: {dp: 8, "
                         "global_batch: 8}\n",
                     "gpu.yaml")
                     .read();
    std::string text = scenario_yaml(s);
    EXPECT_EQ(resolved(read_back(text)), resolved(s)) << text;
    return text;
  };
  std::string over = round_trip(
      "{preset: h100-sxm, peak: 900TFLOPS, hbm_bandwidth: 3TB/s, hbm_capacity: 64GB, "
      "kernel_latency: 5us, sms: 100, gemm_peak: 600TFLOPS, flash_attention: 400TFLOPS, "
      "cudnn_attention: 450TFLOPS, hbm_efficiency: 0.8, speed_spread: 0.01, name: capped}");
  for (const char* key :
       {"peak", "hbm_bandwidth", "hbm_capacity", "kernel_latency", "sms", "gemm_peak",
        "flash_attention", "cudnn_attention", "hbm_efficiency", "speed_spread"})
    EXPECT_NE(over.find(std::string(key) + ": "), std::string::npos) << key << "\n" << over;
  std::string custom = round_trip("{peak: 500TFLOPS, hbm_bandwidth: 2TB/s, hbm_capacity: 40GB, "
                                  "flash_attention: 200TFLOPS}");
  EXPECT_EQ(custom.find("sms"), std::string::npos) << custom; // a figure it lacks: unset
}

TEST(ScenarioWriter, RefusesAValueNoKeyExpresses) {
  Scenario s;
  s.execution.optimizer_bytes_per_param = Bytes(16); // no scenario key gives it
  EXPECT_THROW((void)scenario_yaml(s), InternalError);
}

TEST(ScenarioWriter, FrontierWritesPointsThatRunReplays) {
  // One point a decade, 1-D TP only: 1e24 FLOP is the first point (168 GPUs, see
  // FrontierScenario.TheSearchedBaselinePointReplaysItsPlan), replayed unchanged.
  testing::ScratchDir dir("scenario_writer_frontier");
  std::string scenarios = (dir.path() / "points").string();
  testing::CliOutput out =
      testing::run_trainsim("frontier --points-per-decade 1 --max-tp-2d 1 --out " +
                            (dir.path() / "f").string() + " --scenarios " + scenarios);
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("scenarios to " + scenarios), std::string::npos) << out.text;
  std::filesystem::path first = dir.path() / "points" / "frontier-dense-1e+24.yaml";
  ASSERT_TRUE(std::filesystem::exists(first)) << out.text;
  EXPECT_NE(file_text(first).find("# The closed form's step: "), std::string::npos);
  testing::CliOutput run =
      testing::run_trainsim("run " + first.string() + " --out " + (dir.path() / "r").string());
  EXPECT_EQ(run.exit_code, 0) << run.text;
  // A second frontier into the same directory would overwrite its files: refused (exit 5,
  // before computing anything), unless --force.
  std::string again = "frontier --points-per-decade 1 --max-tp-2d 1 --out " +
                      (dir.path() / "f").string() + " --scenarios " + scenarios;
  testing::CliOutput refused = testing::run_trainsim(again);
  EXPECT_EQ(refused.exit_code, 5) << refused.text;
  EXPECT_EQ(refused.text, "trainsim: --scenarios " + scenarios +
                              ": holds files already, which this would overwrite; name a new "
                              "directory or pass --force\n");
  EXPECT_EQ(testing::run_trainsim(again + " --force").exit_code, 0);
}

TEST(ScenarioWriter, FrontierMarksThePointsThatNeedAFlagOrAnotherMachine) {
  // 1e27 FLOP, 1-D TP: 238,032 GPUs whose TP blocks of 16 span nodes; it replays with
  // --bundle-replicas, which its file and the listing say. 1e28: 8.8M GPUs, refused by the
  // memory guard under an address-space limit of 1 TB, so that the machine's own memory does
  // not decide it: the guard counts 1 MiB of stack per GPU actor, 8.4 TiB there and 232 GiB
  // at 1e27.
  testing::ScratchDir dir("scenario_writer_flags");
  std::string scenarios = (dir.path() / "points").string();
  testing::CliOutput out =
      testing::run_command("ulimit -v 1073741824; " + std::string(TRAINSIM_BINARY) +
                           " frontier --points-per-decade 1 --max-tp-2d 1 --out " +
                           (dir.path() / "f").string() + " --scenarios " + scenarios + " 2>&1");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  std::filesystem::path big = dir.path() / "points" / "frontier-dense-1e+27.yaml";
  EXPECT_NE(out.text.find("replay these with --bundle-replicas:\n  dense 1e+27: trainsim run "
                          "--bundle-replicas " +
                          big.string()),
            std::string::npos)
      << out.text;
  EXPECT_NE(file_text(big).find("# Run it with `trainsim run --bundle-replicas`"), std::string::npos);
  EXPECT_NE(out.text.find("  dense 1e+28: not on this machine: frontier-dense-1e+28: needs about "),
            std::string::npos)
      << out.text;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "points" / "frontier-dense-1e+28.yaml"));
}

} // namespace
} // namespace trainsim
