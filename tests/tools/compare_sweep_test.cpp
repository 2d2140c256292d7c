// The commands that run many scenarios: compare (systems side by side) and sweep (a grid of
// overrides on one scenario's tree), with the one-line errors of their bad inputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "models/error.hpp"
#include "tools/commands/sweep_command.hpp"
#include "tools/io/scenario_loader.hpp"

#include "cli_fixtures.hpp"
#include "file_fixtures.hpp"

namespace {

using namespace trainsim;
namespace fs = std::filesystem;

using trainsim::testing::CliOutput;
using trainsim::testing::read_file;
using trainsim::testing::run_trainsim;
using trainsim::testing::Streams;

fs::path temp_dir(const std::string& name) {
  return trainsim::testing::fresh_dir("sweep_test_" + name);
}

// --- compare -------------------------------------------------------------------------------------

std::string default_path() { return TRAINSIM_SOURCE_DIR "/scenarios/default.yaml"; }

// The default scenario with one key set, written as DIR/NAME.yaml.
fs::path default_with(const fs::path& dir, const std::string& name, const std::string& key,
                      const std::string& value) {
  ScenarioTree tree = ScenarioTree::parse(read_file(default_path()), "default.yaml");
  tree.set(key, value);
  std::ofstream(dir / (name + ".yaml")) << tree.text();
  return dir / (name + ".yaml");
}

// The default scenario with its leaves 2:1 oversubscribed, as a second system to compare.
fs::path oversubscribed(const fs::path& dir) {
  return default_with(dir, "oversubscribed", "system.topology.oversubscription", "2");
}

TEST(Compare, TwoSystemsSideBySideInEveryFormat) {
  auto dir = temp_dir("compare");
  std::string args = default_path() + " " + oversubscribed(dir).string() + " -j 2";
  CliOutput csv = run_trainsim("compare --format csv " + args, Streams::stdout_only);
  ASSERT_EQ(csv.exit_code, 0) << csv.text;
  std::istringstream lines(csv.text);
  std::string header, a, b, extra;
  std::getline(lines, header), std::getline(lines, a), std::getline(lines, b);
  EXPECT_EQ(header.rfind("scenario,gpus,step_time_s,mfu,tp_comm_s,pp_comm_s,dp_comm_s,ep_comm_s,cp_"
                         "comm_s,bubble_s,",
                         0),
            0u);
  EXPECT_EQ(a.rfind("default,64,", 0), 0u);
  EXPECT_EQ(b.rfind("oversubscribed,64,", 0), 0u);
  EXPECT_FALSE(std::getline(lines, extra));
  CliOutput md = run_trainsim("compare --format markdown " + args);
  EXPECT_NE(md.text.find("| scenario | GPUs | step time | MFU |"), std::string::npos) << md.text;
  EXPECT_NE(md.text.find("| oversubscribed | 64 |"), std::string::npos) << md.text;
  CliOutput text = run_trainsim("compare " + args);
  EXPECT_NE(text.text.find("busiest tier"), std::string::npos) << text.text;
}

// The default scenario with 640 layers: 16 x 20 = 20x the weights, gradients and optimizer
// state per GPU (16.2 + 16.2 + 97.1 GB), far beyond an H100's 80 GB.
fs::path too_big(const fs::path& dir) { return default_with(dir, "too_big", "model.layers", "640"); }

TEST(Compare, AScenarioThatDoesNotFitKeepsItsRowAndTheOthersRun) {
  auto dir = temp_dir("compare_fit");
  CliOutput csv = run_trainsim(
      "compare --format csv " + default_path() + " " + too_big(dir).string(), Streams::stdout_only);
  EXPECT_EQ(csv.exit_code, 0) << csv.text;
  EXPECT_NE(csv.text.find("\ndefault,64,"), std::string::npos) << csv.text;
  EXPECT_NE(csv.text.find(",ok,"), std::string::npos) << csv.text;
  EXPECT_NE(csv.text.find("\ntoo_big,0,"), std::string::npos) << csv.text;
  EXPECT_NE(csv.text.find(",refused,"), std::string::npos) << csv.text;
  EXPECT_NE(csv.text.find("system.gpu.hbm_capacity = '80 GB': too small"), std::string::npos)
      << csv.text;
}

TEST(Compare, TwoScenariosSayWhatTheSecondCostsAndWhereEachEnds) {
  // The experts example against itself with node 1 (ranks 8-15) at 0.8 of its kernel rate: the
  // step grows, the others' wait shows in the expert all-to-alls, and the step ends with a
  // rank of the slow node.
  std::string dir = TRAINSIM_SOURCE_DIR "/scenarios/examples/";
  CliOutput out = run_trainsim("compare " + dir + "experts.yaml " + dir + "slow-node.yaml");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_NE(out.text.find("slow-node against experts: step +"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("the phase that grew most: ep_comm"), std::string::npos) << out.text;
  size_t ends = out.text.find("  slow-node: ends with rank ");
  ASSERT_NE(ends, std::string::npos) << out.text;
  int rank = std::stoi(out.text.substr(ends + std::string("  slow-node: ends with rank ").size()));
  EXPECT_GE(rank, 8);
  EXPECT_LE(rank, 15);
  EXPECT_NE(out.text.find("busiest links: nic"), std::string::npos) << out.text;
  // Each step's critical path; the faulty one's runs on a GPU of the slow node, and says so.
  size_t path = out.text.find("    critical path: rank ", ends);
  ASSERT_NE(path, std::string::npos) << out.text;
  size_t slow = out.text.find("slow GPUs on it: rank ", path);
  ASSERT_NE(slow, std::string::npos) << out.text;
  int on = std::stoi(out.text.substr(slow + std::string("slow GPUs on it: rank ").size()));
  EXPECT_GE(on, 8);
  EXPECT_LE(on, 15);
}

TEST(Compare, BadScenarioFailsBeforeSimulating) {
  CliOutput out = run_trainsim("compare " + default_path() + " /nonexistent.yaml");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(
      out.text,
      "trainsim: /nonexistent.yaml: cannot read the scenario file: No such file or directory\n");
}

// --- sweep ---------------------------------------------------------------------------------------

TEST(Sweep, SetParsesKeyAndValues) {
  SweepAxis axis = parse_set("execution.dp=2,4");
  EXPECT_EQ(axis.key, "execution.dp");
  EXPECT_EQ(axis.values, (std::vector<std::string>{"2", "4"}));
  EXPECT_THROW(parse_set("execution.dp"), InputError);
  EXPECT_THROW(parse_set("execution.dp="), InputError);
  EXPECT_THROW(parse_set("execution.dp=2,,4"), InputError);
}

TEST(Sweep, ShardsAreEveryNthVariant) {
  EXPECT_EQ(shard_indices("1/3", 7), (std::vector<size_t>{1, 4}));
  EXPECT_EQ(shard_indices("", 3), (std::vector<size_t>{0, 1, 2}));
  for (const char* bad : {"3/3", "-1/2", "1/0", "1/2x", "a/b", "1"}) {
    try {
      shard_indices(bad, 4);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("command line: --shard = '") + bad +
                                           "': expected I/N with 0 <= I < N, e.g. 0/4");
    }
  }
}

TEST(Sweep, UnknownKeyNamesTheSetAndSuggests) {
  CliOutput out = run_trainsim("sweep " + default_path() + " --set execution.dpp=2,4");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.text, "trainsim: command line: --set execution.dpp=2: " + default_path() +
                          ": execution.dpp = '2': unknown key (did you mean 'dp'?)\n");
}

TEST(Sweep, AVariantOverCapacityIsRefusedInItsRowAndTheOthersRun) {
  // 32 layers fit (the default scenario); 640 need 269 GB per GPU of an 80 GB H100.
  CliOutput out =
      run_trainsim("sweep " + default_path() + " --set model.layers=32,640", Streams::stdout_only);
  EXPECT_EQ(out.exit_code, 0) << out.text;
  std::istringstream lines(out.text);
  std::string header, fits, refused, extra;
  std::getline(lines, header), std::getline(lines, fits), std::getline(lines, refused);
  EXPECT_NE(header.find(",status,error"), std::string::npos) << header;
  EXPECT_EQ(fits.rfind("0,32,64,", 0), 0u) << fits;
  EXPECT_NE(fits.find(",ok,"), std::string::npos) << fits;
  EXPECT_EQ(refused.rfind("1,640,0,", 0), 0u) << refused;
  EXPECT_NE(refused.find(",refused,\"--set model.layers=640: "), std::string::npos) << refused;
  EXPECT_NE(refused.find("needs 269 GB per GPU"), std::string::npos) << refused;
  EXPECT_FALSE(std::getline(lines, extra));
  // --force-memory prices it: 20x the layers, about 20x the step.
  CliOutput forced = run_trainsim("sweep " + default_path() + " --set model.layers=640 --force-memory",
                                  Streams::stdout_only);
  EXPECT_EQ(forced.exit_code, 0) << forced.text;
  EXPECT_NE(forced.text.find("\n0,640,64,"), std::string::npos) << forced.text;
  EXPECT_NE(forced.text.find(",ok,"), std::string::npos) << forced.text;
  // Its warning is said once, when the variant is checked, not again by the child that runs it.
  CliOutput warned = run_trainsim("sweep " + default_path() +
                                  " --set model.layers=640 --force-memory -o /dev/null");
  size_t first = warned.text.find("priced anyway (--force-memory)");
  ASSERT_NE(first, std::string::npos) << warned.text;
  EXPECT_EQ(warned.text.find("priced anyway", first + 1), std::string::npos) << warned.text;
}

TEST(Sweep, AnEndlessFileIsRefusedAtOnce) {
  CliOutput out = run_trainsim("sweep /dev/zero --set model.layers=2");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.text, "trainsim: /dev/zero: is not a regular file (a device, pipe or socket), not a "
                      "scenario file\n");
}

TEST(Sweep, ShardsMergeIntoTheWholeGrid) {
  auto dir = temp_dir("sweep");
  std::string grid =
      "sweep " + default_path() +
      " --set execution.collective=ring,tree --set system.topology.oversubscription=1,2 -j 2";
  ASSERT_EQ(run_trainsim(grid + " -o " + (dir / "all.csv").string()).exit_code, 0);
  ASSERT_EQ(run_trainsim(grid + " --shard 1/2 -o " + (dir / "b.csv").string()).exit_code, 0);
  ASSERT_EQ(run_trainsim(grid + " --shard 0/2 -o " + (dir / "a.csv").string()).exit_code, 0);
  CliOutput merged =
      run_trainsim("sweep merge " + (dir / "b.csv").string() + " " + (dir / "a.csv").string() +
                   " -o " + (dir / "merged.csv").string());
  ASSERT_EQ(merged.exit_code, 0) << merged.text;
  std::string all = read_file(dir / "all.csv");
  EXPECT_EQ(read_file(dir / "merged.csv"), all);
  // 2 x 2 variants, first --set outermost: ring/1, ring/2, tree/1, tree/2.
  EXPECT_NE(all.find("\n2,tree,1,64,"), std::string::npos) << all;
  CliOutput twice =
      run_trainsim("sweep merge " + (dir / "a.csv").string() + " " + (dir / "a.csv").string());
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.text.find("variant 0 appears twice"), std::string::npos) << twice.text;
}

TEST(Sweep, UnwritableOutputFailsBeforeRunningWithExitCodeFive) {
  CliOutput out = run_trainsim("sweep " + default_path() +
                               " --set execution.collective=ring -o /proc/trainsim/s.csv");
  EXPECT_EQ(out.exit_code, 5);
  EXPECT_EQ(out.text, "trainsim: -o /proc/trainsim/s.csv: cannot write the file\n");
}

// --zip pairs the i-th values; without it the grid, first --set outermost (2 x 2 = 4 rows).
TEST(Sweep, ZipPairsTheIthValuesOfEverySet) {
  std::vector<SweepAxis> axes{{"system.topology.nodes", {"8", "16"}}, {"execution.dp", {"4", "8"}}};
  using Points = std::vector<std::vector<std::string>>;
  EXPECT_EQ(sweep_points(axes, true), (Points{{"8", "4"}, {"16", "8"}}));
  EXPECT_EQ(sweep_points(axes, false), (Points{{"8", "4"}, {"8", "8"}, {"16", "4"}, {"16", "8"}}));
  EXPECT_EQ(sweep_points({}, true), (Points{{}})); // no --set: the scenario itself
}

TEST(Sweep, ZipOfListsOfDifferentLengthsIsOneLine) {
  CliOutput out = run_trainsim("sweep " + default_path() +
                               " --set system.topology.nodes=8,16 --set execution.dp=4,8,16 --zip");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(
      out.text,
      "trainsim: command line: --zip needs as many values in every --set: system.topology.nodes "
      "has 2, execution.dp has 3\n");
}

// The README's sweep line, run as written from a directory laid out like the repository
// (build/trainsim and scenarios/), so the example cannot rot. It changes the GPU count, so
// it must vary dp with it (--zip): each of its variants has to load and simulate.
TEST(Sweep, ReadmeExampleRunsAsWritten) {
  std::istringstream readme(read_file(TRAINSIM_SOURCE_DIR "/README.md"));
  std::string line;
  while (std::getline(readme, line) && line.find("trainsim sweep ") == std::string::npos) {}
  ASSERT_NE(line.find("./build/trainsim sweep "), std::string::npos)
      << "no sweep example in README.md";
  auto dir = temp_dir("readme_sweep");
  fs::create_directories(dir / "build");
  fs::create_symlink(TRAINSIM_BINARY, dir / "build" / "trainsim");
  fs::create_directory_symlink(TRAINSIM_SOURCE_DIR "/scenarios", dir / "scenarios");
  std::string command = "cd " + dir.string() + " && " + line.substr(line.find("./build/trainsim"));
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  auto out = line.find(" -o ");
  ASSERT_NE(out, std::string::npos) << "the example writes its CSV with -o: " << line;
  std::istringstream csv(read_file(dir / line.substr(out + 4, line.find(' ', out + 4) - out - 4)));
  std::string row;
  int rows = 0;
  std::getline(csv, row); // header
  while (std::getline(csv, row)) {
    ++rows;
    EXPECT_EQ(row.back(), ',') << "the error column must be empty: " << row;
  }
  EXPECT_GE(rows, 2) << line;
}

// Overrides edit the parsed tree: a nested key is created beside the keys already there, and
// a copy taken before the edit keeps the old tree.
TEST(Sweep, SetEditsTheTreeAndLeavesCopiesAlone) {
  ScenarioTree before = ScenarioTree::parse("a:\n  b: 1\n", "s.yaml");
  ScenarioTree after = before;
  after.set("a.c", "400Gbps");
  EXPECT_NE(after.text().find("c: 400Gbps"), std::string::npos) << after.text();
  EXPECT_NE(after.text().find("b: 1"), std::string::npos) << after.text();
  EXPECT_EQ(before.text().find("c:"), std::string::npos) << before.text();
}

TEST(Sweep, SetThroughAValueIsOneInputErrorLine) {
  ScenarioTree tree = ScenarioTree::parse("model: 1\n", "s.yaml");
  try {
    tree.set("model.b.c", "2");
    FAIL() << "no throw";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "s.yaml: model.b.c = '2': cannot set it: model is a value, "
                                     "not a section");
  }
}

TEST(Sweep, AFigureSetUnderAPresetNameOverridesThatPreset) {
  // `gpu: a100-sxm-80gb` names a preset; --set system.gpu.hbm_capacity=40GB makes it the
  // mapping {preset: a100-sxm-80gb, hbm_capacity: 40GB} (it failed on a YAML scalar before).
  ScenarioTree tree = ScenarioTree::parse(read_file(default_path()), "default.yaml");
  tree.set("system.gpu", "a100-sxm-80gb");
  tree.set("system.gpu.hbm_capacity", "40GB");
  Scenario s = tree.read();
  EXPECT_EQ(s.system.gpu.preset, "a100-sxm-80gb");
  EXPECT_DOUBLE_EQ(s.system.gpu.hbm_capacity.value(), 40e9);
  EXPECT_DOUBLE_EQ(s.system.gpu.peak.value(), 312e12);
}

TEST(Sweep, ABareKeySaysKeysAreDottedPaths) {
  ScenarioTree tree = ScenarioTree::parse(read_file(default_path()), "default.yaml");
  try {
    tree.set("dp", "4");
    FAIL() << "no throw";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "default.yaml: dp = '4': is not a scenario key: a key is its dotted path from the "
              "top, model.*, system.gpu.*, system.topology.* or execution.* (e.g. execution.dp)");
  }
}

} // namespace
