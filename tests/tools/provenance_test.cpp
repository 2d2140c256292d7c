// What was simulated travels with every result: tools/provenance in result.json, the text
// report, compare, and the HTML report.
#include "tools/io/provenance.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_fixtures.hpp"
#include "tests/tools/file_fixtures.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tools/io/version.hpp"

namespace trainsim {
namespace {

const std::string kScenario =
    "model: {kind: mlp, layers: 2, d_model: 256, d_ff: 1024, seq_len: 64}\n"
    "system:\n  gpu: {preset: a100-sxm-80gb, hbm_capacity: 40GB}\n"
    "  topology: {generator: fat-tree, nodes: 1, gpus_per_node: 2}\n"
    "execution: {dp: 2, global_batch: 2}\n";

TEST(Provenance, InputHashIsFnv1a64) {
  // The FNV-1a 64-bit test vectors: "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c.
  EXPECT_EQ(input_hash(""), "fnv1a64:cbf29ce484222325");
  EXPECT_EQ(input_hash("a"), "fnv1a64:af63dc4c8601ec8c");
}

TEST(Provenance, RecordsTheResolvedScenarioPresetGeneratorVersionAndHash) {
  LoadedScenario loaded = parse_scenario(kScenario, "p.yaml");
  nlohmann::ordered_json p = provenance_json(loaded.scenario);
  EXPECT_EQ(p.at("trainsim"), version());
  EXPECT_EQ(p.at("input").at("hash"), input_hash(kScenario));
  EXPECT_EQ(p.at("gpu_preset"), "a100-sxm-80gb");
  EXPECT_EQ(p.at("topology"), "fat-tree");
  const auto& sc = p.at("scenario");
  // The override and the preset's own figure, both resolved.
  EXPECT_EQ(sc.at("system").at("gpu").at("hbm_capacity_bytes"), 40e9);
  EXPECT_EQ(sc.at("system").at("gpu").at("peak_flop_per_s"), 312e12);
  // Keys the file did not give, at their defaults: the host link is the A100's PCIe 4 x16,
  // 32 GB/s a direction.
  EXPECT_EQ(sc.at("system").at("topology").at("pcie_bandwidth"), "3.2e+10Bps");
  EXPECT_EQ(sc.at("system").at("topology").at("nodes"), "1");
  EXPECT_EQ(sc.at("execution").at("schedule"), "1f1b");
  EXPECT_EQ(sc.at("execution").at("dp_collective"), "ring");
  EXPECT_EQ(sc.at("model").at("precision"), "bf16");
}

TEST(Provenance, ATopologyMadeInCodeListsEveryKeyInSiUnits) {
  Scenario s;
  s.system.topology = topo::FatTreeParams{.nodes = 2};
  nlohmann::ordered_json p = provenance_json(s);
  const auto& t = p.at("scenario").at("system").at("topology");
  EXPECT_EQ(t.size(), 14u); // the generator and the fat-tree's 13 keys (docs/topologies.md)
  EXPECT_EQ(t.at("generator"), "fat-tree");
  EXPECT_EQ(t.at("nodes"), "2");
  EXPECT_EQ(t.at("nic_bandwidth"), "5e+10Bps"); // the default 400 Gb/s = 50 GB/s, nothing written
}

TEST(Provenance, EveryOutputSaysWhatWasSimulated) {
  auto dir = testing::fresh_dir("provenance");
  std::string file = (dir / "p.yaml").string();
  std::ofstream(file) << kScenario;
  auto text = testing::run_trainsim("run " + file + " -o " + (dir / "out").string());
  ASSERT_EQ(text.exit_code, 0) << text.text;
  EXPECT_NE(text.text.find("simulated     a100-sxm-80gb on fat-tree"), std::string::npos)
      << text.text;
  EXPECT_NE(
      text.text.find("by            trainsim " + version() + ", input " + input_hash(kScenario)),
      std::string::npos);
  auto result = nlohmann::json::parse(testing::read_file(dir / "out/result.json"));
  EXPECT_EQ(result.at("provenance").at("input").at("hash"), input_hash(kScenario));
  auto compare =
      testing::run_trainsim("compare " + file + " --format csv", testing::Streams::stdout_only);
  EXPECT_NE(compare.text.find("hardware,input_hash,trainsim"), std::string::npos) << compare.text;
  EXPECT_NE(compare.text.find(input_hash(kScenario) + "," + version()), std::string::npos)
      << compare.text;
  ASSERT_EQ(testing::run_trainsim("report " + (dir / "out").string()).exit_code, 0);
  std::string html = testing::read_file(dir / "out/report.html");
  EXPECT_NE(html.find("What was simulated"), std::string::npos);
  EXPECT_NE(html.find("system.topology.pcie_bandwidth"), std::string::npos);
}

} // namespace
} // namespace trainsim
