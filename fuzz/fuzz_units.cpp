// libFuzzer target: arbitrary text through every unit parser (models/units).
#include <cstddef>
#include <cstdint>

#include "fuzz/entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trainsim::fuzz::units({reinterpret_cast<const char*>(data), size});
  return 0;
}
