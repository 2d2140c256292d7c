// libFuzzer target: arbitrary bytes as a GraphML topology file (topologies/import).
#include <cstddef>
#include <cstdint>

#include "fuzz/entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trainsim::fuzz::topology({reinterpret_cast<const char*>(data), size},
                           trainsim::topo::GraphFormat::graphml);
  return 0;
}
