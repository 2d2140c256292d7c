// `trainsim goodput`: the command's contract (one line for each bad option, before the step is
// simulated) and what it reports for a scenario shipped with the project.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/tools/cli_fixtures.hpp"
#include "tests/tools/file_fixtures.hpp"

namespace trainsim {
namespace {

using testing::CliOutput;
using testing::run_trainsim;

const std::string kScenario = std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/experts.yaml";

// The experts example with a `reliability:` section of `keys` (indented lines), in `dir`.
std::string with_reliability(const testing::ScratchDir& dir, const std::string& keys) {
  std::string file = (dir / "experts.yaml").string();
  std::ofstream(file) << testing::read_file(kScenario) << "reliability:\n" << keys;
  return file;
}

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

TEST(GoodputCommand, WritesOverAStorageNetworkOfItsOwn) {
  // The experts example's 32 GPUs in 4 hosts, each host's storage NICs at 400 Gb/s = 50 GB/s,
  // 16 servers at 10 TB/s in all: the servers take their share in a few ms, the hosts' NICs
  // a quarter of the checkpoint each, so the write takes (checkpoint / 4) / 50 GB/s, the
  // checkpoint as the report prints it (to 3 digits).
  testing::ScratchDir scratch("goodput_network");
  CliOutput out =
      run_trainsim("goodput " + with_reliability(scratch, "  storage_network: 400Gb/s\n") +
                   " --storage-bandwidth 10TB/s --restart 60s");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  const std::string kCheckpoint = "checkpoint    ", kIn = "a host) in ";
  size_t at = out.text.find(kCheckpoint), write = out.text.find(kIn);
  ASSERT_NE(at, std::string::npos) << out.text;
  ASSERT_NE(write, std::string::npos) << out.text;
  double gigabytes = std::stod(out.text.substr(at + kCheckpoint.size()));
  double ms = std::stod(out.text.substr(write + kIn.size()));
  EXPECT_NEAR(ms, gigabytes / 4 / 50 * 1000, 0.5) << out.text;
  EXPECT_NE(out.text.find("(10 TB/s in all, on a network of their own at 50 GB/s a host)"),
            std::string::npos)
      << out.text;
}

TEST(GoodputCommand, RefusesBadOptionsInOneLine) {
  CliOutput out = run_trainsim("goodput " + kScenario + " --storage-bandwidth 100GB/s --restart 10");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.text, "trainsim: command line: --restart = '10': '10' needs a unit "
                      "(s, ms, us, ns, min, h)\n");
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
  EXPECT_NE(out.text.find("reliability.async = 'true': copies each GPU's state to host memory"),
            std::string::npos)
      << out.text;
  out = run_trainsim("goodput " + kScenario + " --restart 60s");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.text.find("reliability.storage_bandwidth: not given (nor --storage-bandwidth)"),
            std::string::npos)
      << out.text;
}

TEST(GoodputCommand, ReadsTheReliabilitySectionAndWritesThePlot) {
  // The experts example (32 GPUs, 8 a node) with a section that halves the GPUs' MTBF and
  // gives the storage and restart: the command needs no option but --out.
  testing::ScratchDir scratch("goodput_section");
  std::string file = with_reliability(
      scratch, "  gpu_mtbf: 54167.5h\n  storage_bandwidth: 100GB/s\n  restart: 10min\n");
  std::string dir = (scratch / "out").string();
  CliOutput out = run_trainsim("goodput " + file + " --out " + dir);
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("gpu: 32 units at an MTBF of 54167.50 h each"), std::string::npos)
      << out.text;
  EXPECT_NE(out.text.find("hbm: 32 units at an MTBF of 294912.00 h each"), std::string::npos)
      << out.text;
  // 32.9 GB over 16 servers at 100 GB/s in all: the servers' links bound it, 329 ms.
  EXPECT_NE(out.text.find("in 329 ms (simulated)"), std::string::npos) << out.text;
  std::string svg = testing::read_file(dir + "/goodput.svg");
  EXPECT_NE(svg.find("<svg id=\"goodput\""), std::string::npos);
  EXPECT_NE(testing::read_file(dir + "/goodput.json").find("\"goodput_monte_carlo\""),
            std::string::npos);
}

TEST(GoodputCommand, RefusesBadReliabilityInOneLine) {
  testing::ScratchDir scratch("goodput_refusals");
  auto refusal = [&](const std::string& section) {
    return run_trainsim("goodput " + with_reliability(scratch, section) +
                        " --storage-bandwidth 1TB/s --restart 60s");
  };
  // Refused (exit 2) with `line` in what it printed.
  auto expect_refused = [&](const std::string& section, const std::string& line) {
    CliOutput out = refusal(section);
    EXPECT_EQ(out.exit_code, 2) << section;
    EXPECT_NE(out.text.find(line), std::string::npos) << out.text;
  };
  expect_refused("  hbm_mtbf: 0h\n", "reliability.hbm_mtbf = '0h'");
  expect_refused("  storage_capacity: 10GB\n",
                 "reliability.storage_capacity = '10 GB': is less than one checkpoint of this "
                 "model (32.9 GB");
  // The experts example is one pod of leaves and spines: no cores to hang storage off.
  expect_refused("  storage_switches: core\n",
                 "reliability.storage_switches = 'core': cannot be placed: the fabric has no "
                 "core switch to attach storage servers to");
  expect_refused("  storage_switches: leaf\n  storage_network: 400Gb/s\n",
                 "reliability.storage_switches = 'leaf': places the storage servers on the "
                 "training fabric, and storage_network gives them a network of their own: give "
                 "one of the two");
  expect_refused("  storage_network: 0Gb/s\n", "reliability.storage_network = '0Gb/s'");
  expect_refused("  gpu_mtbff: 1h\n", "did you mean 'gpu_mtbf'");
}

} // namespace
} // namespace trainsim
