// Values that parse, are positive and that the simulator can use, but that no real machine
// has: a 400 Tb/s NIC, a 10 s link latency, a 1 GFLOP/s GPU. They are almost always a typo
// or a wrong unit, so the loader warns about them (and still uses them: an experiment may
// mean them).
#pragma once

#include <string>

namespace trainsim {

enum class Plausible {
  link_bandwidth, ///< B/s, any fabric link (NVLink, PCIe, NIC, switch, torus, global)
  link_latency,   ///< s, per hop
  gpu_peak,       ///< FLOP/s
  hbm_bandwidth,  ///< B/s
  hbm_capacity,   ///< B
  kernel_latency, ///< s, per kernel
};

/// "" when `si` (in SI base units) is plausible for `what`; otherwise why not, e.g.
/// "implausibly high for a link (> 10 TB/s)".
std::string implausibility(Plausible what, double si);

} // namespace trainsim
