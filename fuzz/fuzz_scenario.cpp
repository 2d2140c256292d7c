// libFuzzer target: arbitrary text as a scenario file (tools/scenario_loader).
#include <cstddef>
#include <cstdint>

#include "fuzz/entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trainsim::fuzz::scenario({reinterpret_cast<const char*>(data), size});
  return 0;
}
