// The ECMP flow hash shared by all routers: deterministic (no seed), and well mixed so that
// `hash % k` spreads many (src, dst) pairs evenly over k equal-cost paths.
#pragma once

#include <cstdint>

namespace trainsim::topo {

/// splitmix64's finaliser over the packed pair; depends only on (src, dst).
inline std::uint64_t flow_hash(int src, int dst) {
  std::uint64_t x = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
                    static_cast<std::uint32_t>(dst);
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

} // namespace trainsim::topo
