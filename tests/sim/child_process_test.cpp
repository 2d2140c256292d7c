// The pool of child processes that compare, sweep and validate run their simulations in.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "sim/child_process.hpp"

namespace trainsim::sim {
namespace {

TEST(ChildProcesses, ReturnResultsInTaskOrderWithEachErrorKept) {
  std::vector<std::function<std::string()>> tasks{
      [] { return std::string("a"); },
      []() -> std::string { throw Error(ExitCode::resources, "too big"); },
      [] { return std::string(100000, 'c'); }}; // larger than a pipe's buffer
  auto results = run_in_children(tasks, 2);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].value, "a");
  EXPECT_FALSE(results[1].value);
  EXPECT_EQ(results[1].code, ExitCode::resources);
  EXPECT_EQ(results[1].error, "too big");
  EXPECT_EQ(results[2].value, std::string(100000, 'c'));
}

// Two at a time: task 0 waits (up to 20 s) for a file that only task 2 writes. Task 2 can only
// start in the slot task 1 frees, so task 0 sees the file only if the pool starts the next task
// when any one finishes, not when the oldest does.
TEST(ChildProcesses, ALongTaskDoesNotHoldBackTheNext) {
  std::filesystem::path flag = std::filesystem::temp_directory_path() /
                               ("trainsim-pool-" + std::to_string(::getpid()));
  std::filesystem::remove(flag);
  std::vector<std::function<std::string()>> tasks{
      [&flag] {
        for (int i = 0; i < 2000 && !std::filesystem::exists(flag); ++i)
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return std::string(std::filesystem::exists(flag) ? "saw it" : "waited in vain");
      },
      [] { return std::string("quick"); },
      [&flag] {
        std::ofstream(flag) << "written";
        return std::string("wrote it");
      }};
  std::vector<double> weights{1, 1, 1};
  auto results = run_in_children(tasks, 2, nullptr, &weights);
  std::filesystem::remove(flag);
  EXPECT_EQ(results[0].value, "saw it");
  EXPECT_EQ(results[2].value, "wrote it");
}

} // namespace
} // namespace trainsim::sim
