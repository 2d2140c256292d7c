// Scratch directories and whole-file reads for the tests of what trainsim writes.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <stdlib.h>
#include <string>

namespace trainsim::testing {

/// A new empty directory under the system's temporary directory, "trainsim_" + name + a
/// unique suffix, so that tests running at once (ctest -j) never share one.
inline std::filesystem::path fresh_dir(const std::string& name) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("trainsim_" + name + "_XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a directory like " + pattern);
  return pattern;
}

/// The bytes of a file; empty when it cannot be read.
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace trainsim::testing
