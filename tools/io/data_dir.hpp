// Where trainsim finds its scenarios at run time. Nothing about the source tree is compiled
// into the program, so a build can move or be installed: the scenarios are looked up beside
// the executable (build/trainsim in a checkout, PREFIX/bin/trainsim after an install), or
// wherever TRAINSIM_DATA_DIR says.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainsim {

/// What the lookup starts from; tests give both, the program uses this_process().
struct DataDirSearch {
  std::optional<std::string> data_dir_variable; ///< TRAINSIM_DATA_DIR; nullopt when unset or empty
  std::filesystem::path executable;             ///< this program's file; empty when unknown
};

/// TRAINSIM_DATA_DIR and /proc/self/exe of the running process.
DataDirSearch this_process();

/// The directories that may be the scenarios/ folder, in the order they are tried. When
/// TRAINSIM_DATA_DIR is set only DATA_DIR/scenarios (a wrong setting must not quietly fall back
/// on other scenarios); else, with BIN the executable's directory: BIN/scenarios,
/// BIN/../scenarios (a checkout's build/) and BIN/../share/trainsim/scenarios (an install).
std::vector<std::filesystem::path> scenario_dir_candidates(const DataDirSearch& search);

/// The first candidate that holds default.yaml. When none does, throws one InputError line
/// naming every place tried and, after them, `alternative` (what else the command accepts,
/// e.g. "or give a scenario file").
std::filesystem::path find_scenarios_dir(std::string_view alternative,
                                         const DataDirSearch& search = this_process());

} // namespace trainsim
