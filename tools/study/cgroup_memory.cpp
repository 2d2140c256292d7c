#include "tools/study/cgroup_memory.hpp"

#include <fstream>
#include <sstream>

namespace trainsim {
namespace {

// A file holding one number ("max" or a kernel's near-2^63 "no limit" reads as none).
std::optional<double> read_number(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    double value = std::stod(text);
    return value < 1e18 ? std::optional<double>(value) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<Bytes> left(const std::string& dir, const char* limit_file, const char* usage_file) {
  std::optional<double> limit = read_number(dir + "/" + limit_file);
  if (!limit) return std::nullopt;
  double usage = read_number(dir + "/" + usage_file).value_or(0.0);
  return Bytes(std::max(0.0, *limit - usage));
}

// Inside a container the cgroup's own directory is often mounted as the root itself.
std::optional<Bytes> left_at(const std::string& base, const std::string& path,
                             const char* limit_file, const char* usage_file) {
  if (auto own = left(base + path, limit_file, usage_file)) return own;
  return left(base, limit_file, usage_file);
}

} // namespace

std::optional<Bytes> cgroup_memory_left(const std::string& root, const std::string& self_cgroup) {
  std::istringstream lines(self_cgroup);
  std::optional<Bytes> tightest;
  for (std::string line; std::getline(lines, line);) {
    // "hierarchy-id:controllers:path"; v2 is "0::path", v1's memory controller "N:memory:path".
    size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::string controllers = line.substr(first + 1, second - first - 1),
                path = line.substr(second + 1);
    std::optional<Bytes> here;
    if (controllers.empty())
      here = left_at(root, path, "memory.max", "memory.current");
    else if (controllers.find("memory") != std::string::npos)
      here = left_at(root + "/memory", path, "memory.limit_in_bytes", "memory.usage_in_bytes");
    if (here && (!tightest || *here < *tightest)) tightest = here;
  }
  return tightest;
}

std::optional<Bytes> cgroup_memory_left() {
  std::ifstream in("/proc/self/cgroup");
  std::stringstream text;
  text << in.rdbuf();
  return cgroup_memory_left("/sys/fs/cgroup", text.str());
}

} // namespace trainsim
