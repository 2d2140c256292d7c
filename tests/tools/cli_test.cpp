// The program's contract with its users: exit codes, one-line errors, result.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_fixtures.hpp"
#include "tests/support/scratch_dir.hpp"

namespace {

using trainsim::testing::CliOutput;

CliOutput trainsim(const std::string& arguments) {
  return trainsim::testing::run_trainsim(arguments);
}

using ScratchDir = trainsim::testing::ScratchDir;

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(Cli, MissingScenarioIsOneLineAndExitCodeTwo) {
  CliOutput out = trainsim("run /nonexistent.yaml");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(
      out.text,
      "trainsim: /nonexistent.yaml: cannot read the scenario file: No such file or directory\n");
}

TEST(Cli, BadScenarioValueIsOneLine) {
  ScratchDir dir("cli_test_bad");
  std::ofstream(dir / "s.yaml")
      << "model: {layers: 2, d_model: 8, d_ff: 32, heads: 2, seq_len: 8, colour: red}\n";
  CliOutput out = trainsim("run " + (dir / "s.yaml").string());
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.text,
            "trainsim: " + (dir / "s.yaml").string() + ": model.colour = 'red': unknown key\n");
}

TEST(Cli, FrontierLatencyKnobsRejectNegativeAndUnitlessValues) {
  ScratchDir dir("cli_test_frontier");
  CliOutput negative = trainsim("frontier --network-latency=-1us --out " + dir.string());
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_EQ(negative.text,
            "trainsim: frontier: network_latency = '-1e-06': must not be negative\n");
  CliOutput unitless = trainsim("frontier --nvlink-latency 3 --out " + dir.string());
  EXPECT_EQ(unitless.exit_code, 2);
  EXPECT_NE(unitless.text.find("--nvlink-latency"), std::string::npos) << unitless.text;
  EXPECT_EQ(std::count(unitless.text.begin(), unitless.text.end(), '\n'), 1) << unitless.text;
}

TEST(Cli, FrontierExplainsOnePointsBindingTermAndLatencyPath) {
  // At 1.4e30 FLOP (this model's wall) the best plan is latency-bound: one layer's path is 4
  // kernel launches of 4 us and the TP groups' tree steps, against the per-layer budget.
  CliOutput out = trainsim("frontier --explain 1.4e30");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("latency   "), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("<- binding"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("4 kernel launches x 4 us = 16 us"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("per-layer budget "), std::string::npos) << out.text;
  CliOutput bad = trainsim("frontier --explain lots");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(std::count(bad.text.begin(), bad.text.end(), '\n'), 1) << bad.text;
  EXPECT_NE(bad.text.find("--explain"), std::string::npos) << bad.text;
}

TEST(Cli, DefaultScenarioWritesResultJson) {
  ScratchDir dir("cli_test_default");
  CliOutput out = trainsim("run --out " + dir.string());
  ASSERT_EQ(out.exit_code, 0) << out.text;
  auto result = read_json(dir / "result.json");
  EXPECT_EQ(result["gpus"], 64); // scenarios/default.yaml: 8 nodes x 8 GPUs, DP 4 x TP 8 x PP 2
  EXPECT_GT(result["step_time_s"].get<double>(), 0.0);
  EXPECT_GT(result["mfu"].get<double>(), 0.0);
  EXPECT_LT(result["mfu"].get<double>(), 0.8); // cannot beat the sustained fraction of peak
  double sum = 0;
  for (const auto& [name, seconds] : result["breakdown"].items()) sum += seconds.get<double>();
  EXPECT_NEAR(sum, result["step_time_s"].get<double>(), 1e-9);
  EXPECT_TRUE(result["sim"].contains("wall_s"));
}

/// The file's bytes without its wall-clock line.
std::string reproducible_part(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line, kept;
  while (std::getline(in, line))
    if (line.find("\"wall_s\"") == std::string::npos) kept += line + "\n";
  return kept;
}

TEST(Cli, SameScenarioGivesTheSameResultFile) {
  ScratchDir a("cli_test_same_a"), b("cli_test_same_b");
  ASSERT_EQ(trainsim("run --out " + a.string()).exit_code, 0);
  ASSERT_EQ(trainsim("run --out " + b.string()).exit_code, 0);
  EXPECT_EQ(reproducible_part(a / "result.json"), reproducible_part(b / "result.json"));
  EXPECT_GT(reproducible_part(a / "result.json").size(), 200u);
}

TEST(Cli, UnknownFlagIsRejected) {
  CliOutput out = trainsim("run --fidelty fine");
  EXPECT_EQ(out.exit_code, 1); // usage error (docs/errors.md)
  EXPECT_NE(out.text.find("--fidelty"), std::string::npos);
}

// A known flag with a bad value is bad input, like a bad scenario value (docs/errors.md).
TEST(Cli, BadFlagValueIsBadInput) {
  CliOutput out = trainsim("run --fidelity medium");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.text, "trainsim: command line: --fidelity = 'medium': must be fast or fine\n");
}

// The files --out implies are checked before simulating, and the error names --out, the option
// the user typed (it used to name --trace, after trace.json in the directory).
TEST(Cli, UnwritableRunOutNamesOut) {
  for (const char* option : {"--out", "-o"}) {
    CliOutput out = trainsim(std::string("run ") + option + " /proc/trainsim/out");
    EXPECT_EQ(out.exit_code, 5);
    EXPECT_EQ(out.text.rfind("trainsim: --out /proc/trainsim/out: cannot create the directory", 0),
              0u)
        << out.text;
    EXPECT_EQ(std::count(out.text.begin(), out.text.end(), '\n'), 1) << out.text;
  }
}

// frontier checks --out before its few seconds of computing (commands/frontier_command.cpp), so the
// error is its own line about --out, not frontier_output's after the computation.
TEST(Cli, UnwritableFrontierOutNamesOut) {
  CliOutput out = trainsim("frontier --out /proc/trainsim/frontier");
  EXPECT_EQ(out.exit_code, 5);
  EXPECT_EQ(
      out.text.rfind("trainsim: --out /proc/trainsim/frontier: cannot create the directory", 0), 0u)
      << out.text;
  EXPECT_EQ(std::count(out.text.begin(), out.text.end(), '\n'), 1) << out.text;
}

TEST(Cli, UnwritableFrontierScenariosNamesScenarios) {
  // --scenarios is checked with --out, before the computation.
  ScratchDir dir("cli_test_frontier_scenarios");
  CliOutput out = trainsim("frontier --out " + dir.string() + " --scenarios /proc/trainsim/points");
  EXPECT_EQ(out.exit_code, 5);
  EXPECT_EQ(out.text.rfind("trainsim: --scenarios /proc/trainsim/points: cannot create the "
                           "directory",
                           0),
            0u)
      << out.text;
  EXPECT_EQ(std::count(out.text.begin(), out.text.end(), '\n'), 1) << out.text;
}

TEST(Cli, OutThatIsAFileIsRefusedBeforeSimulating) {
  ScratchDir dir("cli_test_out_file");
  std::ofstream(dir / "taken") << "not a directory\n";
  CliOutput out = trainsim("run -o " + (dir / "taken").string());
  EXPECT_EQ(out.exit_code, 5);
  EXPECT_EQ(out.text.rfind("trainsim: --out " + (dir / "taken").string() + ": ", 0), 0u)
      << out.text;
  EXPECT_EQ(out.text.find("simulated"), std::string::npos) << out.text; // no report: nothing ran
}

} // namespace
