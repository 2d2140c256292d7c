// Scratch directories for tests that write files. Each is new and uniquely named (mkdtemp), so
// tests running at once (ctest -j, two checkouts, two users) never share or clobber one.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <stdlib.h>
#include <string>
#include <system_error>

namespace trainsim::testing {

/// A new empty directory under the system's temporary directory: "trainsim_" + name + a
/// unique suffix. It stays after the test (for tests that look at it afterwards); prefer
/// ScratchDir, which removes it.
inline std::filesystem::path fresh_dir(const std::string& name) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / ("trainsim_" + name + "_XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot create a directory like " + pattern);
  return pattern;
}

/// A fresh_dir() removed, with everything in it, when the object goes out of scope. There is
/// no implicit conversion to a path: `fs::path p = ScratchDir("x");` would remove the directory
/// at once and leave p dangling.
class ScratchDir {
public:
  explicit ScratchDir(const std::string& name) : path_(fresh_dir(name)) {}
  ~ScratchDir() {
    std::error_code ignored; // a test's failure, not a cleanup's, is what to report
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::string string() const { return path_.string(); }
  std::filesystem::path operator/(const std::filesystem::path& child) const {
    return path_ / child;
  }

private:
  std::filesystem::path path_;
};

} // namespace trainsim::testing
