// The memory guard's view of a container's limit (tools/study/cgroup_memory.hpp), on cgroup trees
// written here: v2 and v1, a limit set at the process's path or at the mount's root, none.
#include "tools/study/cgroup_memory.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/tools/file_fixtures.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text << "\n";
}

TEST(CgroupMemory, V2LimitMinusUsageAtTheProcessPath) {
  // memory.max 4 GiB, memory.current 1 GiB: 3 GiB left.
  fs::path root = testing::fresh_dir("cgroup_v2");
  write(root / "job/memory.max", "4294967296");
  write(root / "job/memory.current", "1073741824");
  EXPECT_DOUBLE_EQ(cgroup_memory_left(root.string(), "0::/job\n")->value(), 3221225472.0);
}

TEST(CgroupMemory, V1LimitAtTheMountRootWhenThePathIsNotThere) {
  // A container sees its own cgroup as the root of the memory hierarchy: 2e9 - 5e8 = 1.5e9.
  fs::path root = testing::fresh_dir("cgroup_v1");
  write(root / "memory/memory.limit_in_bytes", "2000000000");
  write(root / "memory/memory.usage_in_bytes", "500000000");
  EXPECT_DOUBLE_EQ(cgroup_memory_left(root.string(), "4:memory:/not/mounted/here\n0::/\n")->value(),
                   1.5e9);
}

TEST(CgroupMemory, NoLimitIsNone) {
  // "max" (v2) and the kernel's 2^63 - 4096 (v1) both mean unlimited; no file means no cgroup.
  fs::path root = testing::fresh_dir("cgroup_none");
  write(root / "memory.max", "max");
  write(root / "memory/memory.limit_in_bytes", "9223372036854771712");
  EXPECT_FALSE(cgroup_memory_left(root.string(), "4:memory:/\n0::/\n").has_value());
  EXPECT_FALSE(cgroup_memory_left((root / "absent").string(), "0::/\n").has_value());
}

} // namespace
} // namespace trainsim
