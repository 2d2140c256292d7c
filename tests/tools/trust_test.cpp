// Trust: hostile inputs never escape the error policy (every fuzz seed and reproducer, each
// filed where the replay finds it, replayed through the fuzz targets' entry points), and a
// deadlock is reported instead of a wrong number (the memory guard: memory_guard_test.cpp;
// the same scenario giving the same bytes: determinism_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/entry_points.hpp"
#include "models/error.hpp"
#include "sim/collective_run.hpp"
#include "sim/collectives.hpp"
#include "tests/tools/contained.hpp"
#include "tests/tools/file_fixtures.hpp"
#include "tools/io/scenario_loader.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::run_contained;
const fs::path kFuzz = fs::path(TRAINSIM_SOURCE_DIR) / "fuzz";

// The fuzz targets by directory name, each with the entry point its fuzz_<name>.cpp calls.
const std::map<std::string, std::function<void(std::string_view)>>& targets() {
  static const std::map<std::string, std::function<void(std::string_view)>> all{
      {"scenario", fuzz::scenario},
      {"graphml", [](std::string_view t) { fuzz::topology(t, topo::GraphFormat::graphml); }},
      {"json", [](std::string_view t) { fuzz::topology(t, topo::GraphFormat::json); }},
      {"csv", [](std::string_view t) { fuzz::topology(t, topo::GraphFormat::csv); }},
      {"units", fuzz::units}};
  return all;
}

/// Feeds every file of `folder`/<target>/ to its target; returns "file: problem" for each
/// file that did not stay within the error policy.
std::vector<std::string> replay(const fs::path& folder, int& files) {
  std::vector<std::string> failures;
  for (const auto& [name, entry] : targets()) {
    if (!fs::is_directory(folder / name)) continue;
    for (const auto& file : fs::directory_iterator(folder / name)) {
      ++files;
      std::string problem = run_contained(entry, read_file(file.path()));
      if (!problem.empty()) failures.push_back(file.path().string() + ": " + problem);
    }
  }
  return failures;
}

TEST(Trust, FuzzCorpusAndFixedReproducersStayWithinTheErrorPolicy) {
  int files = 0;
  for (const char* folder : {"corpus", "regressions"})
    for (const std::string& failure : replay(kFuzz / folder, files)) ADD_FAILURE() << failure;
  EXPECT_GT(files, 20); // the seed corpus is there
}

// The replay finds inputs by folder: a seed or reproducer filed anywhere but corpus/<target>/
// or regressions/<target>/ would silently never run. Every target also needs seeds and the
// dictionary fuzz/CMakeLists.txt passes it.
TEST(Trust, EveryFuzzInputLiesInItsTargetsFolder) {
  int inputs = 0;
  for (const char* root : {"corpus", "regressions"})
    for (const auto& entry : fs::recursive_directory_iterator(kFuzz / root)) {
      if (entry.is_directory()) continue;
      ++inputs;
      fs::path relative = fs::relative(entry.path(), kFuzz / root); // <target>/<file>
      bool replayed = std::distance(relative.begin(), relative.end()) == 2 &&
                      targets().contains(relative.begin()->string());
      EXPECT_TRUE(replayed) << "fuzz/" << root << "/" << relative.string()
                            << " is replayed by no target";
    }
  EXPECT_GT(inputs, 20);
  for (const auto& [name, entry] : targets()) {
    EXPECT_FALSE(fs::is_empty(kFuzz / "corpus" / name)) << name << " has no seeds";
    EXPECT_TRUE(fs::is_regular_file(kFuzz / "dict" / (name + ".dict")))
        << name << " has no dictionary";
  }
}

LoadedScenario default_scenario() {
  return load_scenario(TRAINSIM_SOURCE_DIR "/scenarios/default.yaml");
}

// ---- Deadlock report

// A ring all-reduce over GPUs 0-3 of the default scenario, called by the first `callers` of
// them; "finished" when the engine returns.
std::string ring_of_four(const LoadedScenario& l, int callers) {
  sim::CollectiveCall call{
      "ring", sim::CollectiveOp::all_reduce, Bytes(1e6), sim::Fidelity::fine, {0, 1, 4}};
  call.callers = callers;
  call.channel = "tp";
  sim::simulate_collective(l.topology, call);
  return "finished";
}

TEST(Trust, DeadlockedRingReportsWhoWaitsOnWhat) {
  LoadedScenario l = default_scenario();
  try {
    ring_of_four(l, 2); // members 2 and 3 never call the collective
    FAIL() << "the deadlock went unnoticed";
  } catch (const Error& e) {
    std::cerr << "  reported: " << e.what() << "\n";
    std::string line = e.what();
    EXPECT_EQ(e.exit_code(), ExitCode::simulation);
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_EQ(line.rfind("simulation deadlocked: 2 of 4 actors wait forever", 0), 0u) << line;
    EXPECT_NE(line.find("gpu0 waits to "), std::string::npos) << line;
    EXPECT_NE(line.find("gpu1 waits to "), std::string::npos) << line;
    EXPECT_NE(line.find(".tp"), std::string::npos) << line; // the channel's mailbox is named
  }
}

TEST(Trust, CompleteRingIsNotADeadlock) {
  LoadedScenario l = default_scenario();
  std::string out = ring_of_four(l, 4);
  EXPECT_EQ(out, "finished");
}

} // namespace
} // namespace trainsim
