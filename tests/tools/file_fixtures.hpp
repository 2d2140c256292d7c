// Scratch directories and whole-file reads for the tests of what trainsim writes.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace trainsim::testing {

/// An empty directory under the system's temporary directory, "trainsim_" + name; whatever
/// an earlier run left there is removed first.
inline std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("trainsim_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// The bytes of a file; empty when it cannot be read.
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace trainsim::testing
