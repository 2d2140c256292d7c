// The scenarios are found at run time (tools/io/data_dir.hpp), so the program holds no path of
// the tree it was built from and runs wherever it is copied or installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_fixtures.hpp"
#include "file_fixtures.hpp"
#include "models/error.hpp"
#include "tools/io/data_dir.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

void touch(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "\n";
}

std::string error_of(const DataDirSearch& search) {
  try {
    (void)find_scenarios_dir("or give a scenario file", search);
  } catch (const InputError& e) {
    return e.what();
  }
  return "found";
}

TEST(DataDir, LooksBesideTheProgramInACheckoutAndAnInstall) {
  DataDirSearch s{std::nullopt, "/opt/ts/bin/trainsim"};
  EXPECT_EQ(scenario_dir_candidates(s),
            (std::vector<fs::path>{"/opt/ts/bin/scenarios", "/opt/ts/scenarios",
                                   "/opt/ts/share/trainsim/scenarios"}));
}

TEST(DataDir, TheVariableIsTheOnlyPlaceWhenSet) {
  // A wrong TRAINSIM_DATA_DIR must not quietly fall back on the scenarios beside the program.
  DataDirSearch s{"/data", "/opt/ts/bin/trainsim"};
  EXPECT_EQ(scenario_dir_candidates(s), (std::vector<fs::path>{"/data/scenarios"}));
}

TEST(DataDir, FindsTheFirstPlaceHoldingTheDefaultScenario) {
  ScratchDir dir("data_dir");
  touch(dir / "checkout" / "scenarios" / "default.yaml");
  EXPECT_EQ(find_scenarios_dir("", {std::nullopt, dir / "checkout" / "build" / "trainsim"}),
            dir / "checkout" / "scenarios");
  touch(dir / "prefix" / "share" / "trainsim" / "scenarios" / "default.yaml");
  EXPECT_EQ(find_scenarios_dir("", {std::nullopt, dir / "prefix" / "bin" / "trainsim"}),
            dir / "prefix" / "share" / "trainsim" / "scenarios");
  // A scenarios/ folder without default.yaml is someone else's.
  fs::create_directories(dir / "other" / "scenarios");
  EXPECT_EQ(error_of({(dir / "other").string(), {}})
                .rfind("scenarios/default.yaml: not found in TRAINSIM_DATA_DIR", 0),
            0u);
}

TEST(DataDir, NothingFoundIsOneLineNamingEveryPlace) {
  EXPECT_EQ(
      error_of({std::nullopt, "/nowhere/bin/trainsim"}),
      "scenarios/default.yaml: not found beside the program (looked in /nowhere/bin/scenarios, "
      "/nowhere/scenarios, /nowhere/share/trainsim/scenarios); set TRAINSIM_DATA_DIR to the "
      "directory that "
      "holds scenarios/, or give a scenario file");
  EXPECT_EQ(error_of({"/nowhere", {}}), "scenarios/default.yaml: not found in TRAINSIM_DATA_DIR "
                                        "(looked in /nowhere/scenarios); set it to the "
                                        "directory that holds scenarios/, or give a scenario file");
  EXPECT_EQ(error_of({std::nullopt, {}}),
            "scenarios/default.yaml: not found (the program's own path is unknown); set "
            "TRAINSIM_DATA_DIR to the "
            "directory that holds scenarios/, or give a scenario file");
}

// A copy of the program in a directory with no scenarios, nested so that no folder above the
// scratch directory (e.g. /tmp/scenarios) is looked at.
struct Relocated {
  ScratchDir dir{"relocated"};
  fs::path program = dir / "a" / "bin" / "trainsim";
  Relocated() {
    fs::create_directories(program.parent_path());
    fs::copy_file(TRAINSIM_BINARY, program);
  }
  [[nodiscard]] testing::CliOutput run(const std::string& arguments,
                                       const std::string& environment = "") const {
    std::string command = "env " + (environment.empty() ? "-u TRAINSIM_DATA_DIR" : environment) +
                          " " + program.string() + " " + arguments + " 2>&1";
    return testing::run_command(command);
  }
};

TEST(DataDir, ACopiedProgramSaysWhereItLooked) {
  Relocated r;
  fs::path a = r.dir / "a";
  testing::CliOutput out = r.run("run");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.text, "trainsim: scenarios/default.yaml: not found beside the program (looked in " +
                          (a / "bin" / "scenarios").string() + ", " + (a / "scenarios").string() +
                          ", " + (a / "share" / "trainsim" / "scenarios").string() +
                          "); set TRAINSIM_DATA_DIR to the directory that holds scenarios/, or "
                          "give a scenario file\n");
  // validate looks them up before it simulates anything, and names its own way out.
  out = r.run("validate --quick -o " + (r.dir / "v").string());
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.text.find("not found beside the program"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find(", or give --scenarios DIR\n"), std::string::npos) << out.text;
  out = r.run("validate --scenarios " + (r.dir / "none").string());
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.text, "trainsim: command line: --scenarios = '" + (r.dir / "none").string() +
                          "': is not a directory\n");
}

TEST(DataDir, ACopiedProgramRunsWithTrainsimDataDir) {
  Relocated r;
  testing::CliOutput out =
      r.run("run --json", std::string("TRAINSIM_DATA_DIR=") + TRAINSIM_SOURCE_DIR);
  EXPECT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("\"gpus\": 64"), std::string::npos)
      << out.text.substr(0, 300); // scenarios/default.yaml
}

TEST(DataDir, AnInstalledProgramFindsItsShareFolder) {
  // PREFIX/bin/trainsim and PREFIX/share/trainsim/scenarios, as cmake --install lays them out.
  Relocated r;
  fs::create_directories(r.dir / "a" / "share" / "trainsim");
  fs::create_directory_symlink(fs::path(TRAINSIM_SOURCE_DIR) / "scenarios",
                               r.dir / "a" / "share" / "trainsim" / "scenarios");
  testing::CliOutput out = r.run("bounds");
  EXPECT_EQ(out.exit_code, 0) << out.text;
}

TEST(DataDir, TheProgramHoldsNoSourcePath) {
  // Debug information names the source files; only a Release build is checked.
  if (std::string(TRAINSIM_BUILD_TYPE) != "Release")
    GTEST_SKIP() << "a " << TRAINSIM_BUILD_TYPE << " build";
  std::string program = testing::read_file(TRAINSIM_BINARY);
  ASSERT_GT(program.size(), 1000000u);
  EXPECT_EQ(program.find(TRAINSIM_SOURCE_DIR), std::string::npos)
      << "the program names " << TRAINSIM_SOURCE_DIR;
}

} // namespace
} // namespace trainsim
