#include "models/plausibility.hpp"

#include <algorithm>
#include <array>

#include "models/check.hpp"

namespace trainsim {
namespace {

struct Range {
  Plausible what;
  const char* noun; ///< "implausibly high for <noun>"
  double low;       ///< SI; 0 for no lower bound
  const char* low_text;
  double high; ///< SI
  const char* high_text;
};

// Each bound is about ten times beyond the most extreme part shipping (late 2025), so a
// warning means a typo or a wrong unit, never a fast machine:
// - links: NVLink 5 is 900 GB/s per direction per GPU, the fastest link in use; 1 Gb/s is the
//   slowest Ethernet in a datacenter. A hop is 0.1-10 us; 1 ms is a link between sites.
// - GPU peak: B200 dense FP4 is 9 PFLOP/s, the highest datasheet rate; 1 TFLOP/s is a CPU.
// - HBM: B200 has 8 TB/s and B300 288 GB; 100 GB/s and 1 GB are a CPU's DDR and a phone's.
// - kernels: a launch and synchronisation is 2-10 us; 1 ms is a whole small kernel.
constexpr std::array<Range, 6> kRanges{{
    {Plausible::link_bandwidth, "a link", 125e6, "1 Gb/s", 10e12, "10 TB/s"},
    {Plausible::link_latency, "a link hop", 0.0, "", 1e-3, "1 ms"},
    {Plausible::gpu_peak, "a GPU", 1e12, "1 TFLOP/s", 100e15, "100 PFLOP/s"},
    {Plausible::hbm_bandwidth, "HBM", 100e9, "100 GB/s", 100e12, "100 TB/s"},
    {Plausible::hbm_capacity, "HBM", 1e9, "1 GB", 4e12, "4 TB"},
    {Plausible::kernel_latency, "a kernel launch", 0.0, "", 1e-3, "1 ms"},
}};

} // namespace

std::string implausibility(Plausible what, double si) {
  const auto* r = std::find_if(kRanges.begin(), kRanges.end(),
                               [what](const Range& x) { return x.what == what; });
  TRAINSIM_CHECK(r != kRanges.end(), "every Plausible has a range");
  if (si > r->high)
    return std::string("implausibly high for ") + r->noun + " (> " + r->high_text + ")";
  if (si < r->low)
    return std::string("implausibly low for ") + r->noun + " (< " + r->low_text + ")";
  return {};
}

} // namespace trainsim
