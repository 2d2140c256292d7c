// The command line's conventions: --version.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "tools/version.hpp"

#include "cli_fixtures.hpp"

namespace {

using trainsim::testing::CliOutput;

CliOutput trainsim(const std::string& arguments) {
  return trainsim::testing::run_trainsim(arguments);
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The version as CMake's project() states it, read from the top-level CMakeLists.txt.
std::string cmake_project_version() {
  std::smatch m;
  std::string cmake = read_text(TRAINSIM_SOURCE_DIR "/CMakeLists.txt");
  return std::regex_search(cmake, m, std::regex(R"(project\(trainsim VERSION ([0-9.]+))")) ? m[1].str() : "";
}

TEST(CliConventions, VersionIsTheProjectVersion) {
  ASSERT_FALSE(cmake_project_version().empty());
  EXPECT_EQ(trainsim::version(), cmake_project_version());
  CliOutput out = trainsim("--version");
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(out.text, "trainsim " + cmake_project_version() + "\n");
}

} // namespace
