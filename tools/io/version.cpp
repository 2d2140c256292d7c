#include "tools/io/version.hpp"

namespace trainsim {

// TRAINSIM_VERSION comes from tools/CMakeLists.txt; this file is compiled on its own so that
// nothing else (no source path) is baked into what it returns.
std::string version() { return TRAINSIM_VERSION; }

} // namespace trainsim
