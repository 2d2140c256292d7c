// The program's version, as CMake's project(trainsim VERSION ...) states it: printed by
// `trainsim --version` and recorded with results, so a file says which build wrote it.
#pragma once

#include <string>

namespace trainsim {

/// "MAJOR.MINOR.PATCH", e.g. "0.1.0".
std::string version();

} // namespace trainsim
