// `trainsim goodput`: the command's contract (one line for each bad option, before the step is
// simulated) and what it reports for a scenario shipped with the project.
#include <gtest/gtest.h>

#include <string>

#include "tests/tools/cli_fixtures.hpp"

namespace trainsim {
namespace {

using testing::CliOutput;
using testing::run_trainsim;

const std::string kScenario = std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/experts.yaml";

TEST(GoodputCommand, ReportsTheCheckpointTheIntervalAndTheGoodput) {
  CliOutput out = run_trainsim("goodput " + kScenario + " --storage-bandwidth 100GB/s --restart 600s");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  // 32 GPUs at Llama 3's 419 / (16,384 x 54 x 24) per GPU-hour: a job MTBF of
  // 16,384 x 54 x 24 / (419 x 32) = 21,233,664 / 13,408 = 1,583.66 h.
  EXPECT_NE(out.text.find("a job MTBF of 1583.66 h"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("(Young-Daly: sqrt(2 C M))"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("by Monte-Carlo over 720.00 h (seed 1:"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("1000000 GPUs: MTBF"), std::string::npos) << out.text;
}

TEST(GoodputCommand, RefusesBadOptionsInOneLine) {
  CliOutput out = run_trainsim("goodput " + kScenario + " --storage-bandwidth 100GB/s --restart 10min");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.text, "trainsim: command line: --restart = '10min': '10min' has no valid unit "
                      "(expected s, ms, us, ns)\n");
  out = run_trainsim("goodput " + kScenario + " --storage-bandwidth 0GB/s --restart 60s");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.text.find("--storage-bandwidth = '0GB/s'"), std::string::npos) << out.text;
  out = run_trainsim("goodput " + kScenario + " --storage-bandwidth 1TB/s --restart 60s --hours 0");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.text, "trainsim: command line: --hours: must be above 0\n");
  out = run_trainsim("goodput " + std::string(TRAINSIM_SOURCE_DIR) +
                     "/scenarios/examples/fabric-torus.yaml --storage-bandwidth 1TB/s "
                     "--restart 60s --async");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.text.find("--async: copies each GPU's state to host memory"), std::string::npos)
      << out.text;
}

} // namespace
} // namespace trainsim
