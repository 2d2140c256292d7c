// Scratch directories and whole-file reads for the tests of what trainsim writes.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/scratch_dir.hpp"

namespace trainsim::testing {

/// The bytes of a file; empty when it cannot be read.
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace trainsim::testing
