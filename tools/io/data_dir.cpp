#include "tools/io/data_dir.hpp"

#include <cstdlib>
#include <system_error>

#include "models/error.hpp"

namespace trainsim {

namespace fs = std::filesystem;

DataDirSearch this_process() {
  DataDirSearch s;
  if (const char* v = std::getenv("TRAINSIM_DATA_DIR"); v != nullptr && *v != '\0')
    s.data_dir_variable = v;
  std::error_code
      error; // no /proc (not Linux): only TRAINSIM_DATA_DIR can say, and the message will tell
  s.executable = fs::read_symlink("/proc/self/exe", error);
  return s;
}

std::vector<fs::path> scenario_dir_candidates(const DataDirSearch& s) {
  if (s.data_dir_variable) return {fs::path(*s.data_dir_variable) / "scenarios"};
  if (s.executable.empty()) return {};
  fs::path bin = s.executable.parent_path();
  fs::path prefix = bin.parent_path();
  return {bin / "scenarios", prefix / "scenarios", prefix / "share" / "trainsim" / "scenarios"};
}

fs::path find_scenarios_dir(std::string_view alternative, const DataDirSearch& s) {
  std::string tried;
  for (const fs::path& dir : scenario_dir_candidates(s)) {
    std::error_code error;
    if (fs::is_regular_file(dir / "default.yaml", error)) return dir;
    tried += (tried.empty() ? "" : ", ") + dir.string();
  }
  std::string where = s.data_dir_variable ? "in TRAINSIM_DATA_DIR (looked in " + tried + "); set it"
                      : tried.empty()
                          ? "(the program's own path is unknown); set TRAINSIM_DATA_DIR"
                          : "beside the program (looked in " + tried + "); set TRAINSIM_DATA_DIR";
  throw InputError("scenarios/default.yaml", "not found " + where +
                                                 " to the directory that holds scenarios/, " +
                                                 std::string(alternative));
}

} // namespace trainsim
