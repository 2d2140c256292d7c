// Determinism: the same scenario gives the same bytes, run after run, on every output file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_fixtures.hpp"
#include "file_fixtures.hpp"
#include "tests/support/scratch_dir.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
const fs::path kFuzz = fs::path(TRAINSIM_SOURCE_DIR) / "fuzz";

using trainsim::testing::read_file;

/// result.json without the wall-clock line, the only field allowed to differ.
std::string without_wall_time(const fs::path& path) {
  std::istringstream in(read_file(path));
  std::string kept;
  for (std::string line; std::getline(in, line);)
    if (line.find("\"wall_s\"") == std::string::npos) kept += line + "\n";
  return kept;
}

// Every file of the two --out directories (result.json, trace.json, links.csv) is compared.
void expect_identical_runs(const std::string& scenario, const std::string& name) {
  testing::ScratchDir dir("trust_" + name);
  for (const char* run : {"a", "b"}) {
    testing::CliOutput out =
        testing::run_trainsim("run " + scenario + " --out " + (dir / run).string());
    ASSERT_EQ(out.exit_code, 0) << scenario << ": " << out.text;
  }
  std::string a = without_wall_time(dir / "a" / "result.json");
  EXPECT_GT(a.size(), 100u);
  EXPECT_EQ(a, without_wall_time(dir / "b" / "result.json")) << scenario;
  for (const auto& file : fs::directory_iterator(dir / "a")) {
    if (file.path().filename() == "result.json") continue;
    EXPECT_EQ(read_file(file.path()), read_file(dir / "b" / file.path().filename())) << file.path();
  }
}

TEST(Trust, SameScenarioGivesByteIdenticalResultsOnAFatTree) {
  expect_identical_runs(TRAINSIM_SOURCE_DIR "/scenarios/default.yaml", "fat_tree");
}

TEST(Trust, SameScenarioGivesByteIdenticalResultsOnATorus) {
  expect_identical_runs((kFuzz / "corpus" / "scenario" / "torus.yaml").string(), "torus");
}

} // namespace
} // namespace trainsim
