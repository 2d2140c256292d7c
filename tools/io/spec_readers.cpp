#include "tools/io/spec_readers.hpp"

namespace trainsim {
namespace {

// A new peak scales what the GPU achieves of it (gemm_peak, the attention table) unless
// those are given too: a what-if GPU with twice the compute keeps the preset's efficiency.
void scale_rates(GpuSpec& g, double k) {
  g.gemm_peak = g.gemm_peak * k;
  for (auto* row : {&g.flash_attention.d64, &g.flash_attention.d128})
    for (FlopPerSecond& r : *row) r = r * k;
}

// matmul_efficiency and gemm_peak both say how fast matmuls run: the per-operator model takes
// gemm_peak, the roofline peak x matmul_efficiency. A preset brings a measured gemm_peak, which
// would leave a matmul_efficiency the user set acting on the roofline only, so setting it
// replaces the preset's gemm_peak by peak x matmul_efficiency; setting both is refused.
void read_matmul_rate(const Params& p, GpuSpec& g) {
  if (!p.has("matmul_efficiency")) return;
  if (p.has("gemm_peak"))
    p.fail("matmul_efficiency",
           "and gemm_peak both set the matmul rate (gemm_peak is peak x matmul_efficiency); "
           "give one");
  if (g.gemm_peak.value() > 0) g.gemm_peak = g.peak * g.matmul_efficiency;
}

} // namespace

GpuSpec read_gpu_figures(const Params& p, GpuSpec g) {
  FlopPerSecond preset_peak = g.peak;
  g.peak = p.get_positive_or("peak", g.peak);
  if (p.has("peak")) scale_rates(g, g.peak / preset_peak);
  g.matmul_efficiency = p.get_positive_or("matmul_efficiency", g.matmul_efficiency);
  g.hbm_bandwidth = p.get_positive_or("hbm_bandwidth", g.hbm_bandwidth);
  g.hbm_capacity = p.get_positive_or("hbm_capacity", g.hbm_capacity);
  g.kernel_latency = p.get_or("kernel_latency", g.kernel_latency);
  if (g.matmul_efficiency > 1.0)
    p.fail("matmul_efficiency", "is a fraction of peak and cannot exceed 1");
  if (g.kernel_latency.value() < 0) p.fail("kernel_latency", "must not be negative");
  // The per-operator model's figures (docs/compute-model.md).
  g.sms = p.get_positive_or("sms", g.sms);
  g.gemm_peak = p.get_positive_or("gemm_peak", g.gemm_peak);
  read_matmul_rate(p, g);
  if (p.has("flash_attention")) { // one rate for every head dimension and sequence length
    FlopPerSecond rate = p.get_positive<FlopPerSecond>("flash_attention");
    g.flash_attention.d64.fill(rate);
    g.flash_attention.d128.fill(rate);
  }
  g.hbm_efficiency = p.get_positive_or("hbm_efficiency", g.hbm_efficiency);
  if (g.hbm_efficiency > 1.0)
    p.fail("hbm_efficiency", "is a fraction of hbm_bandwidth and cannot exceed 1");
  g.speed_spread = p.get_or("speed_spread", g.speed_spread);
  if (g.speed_spread < 0.0 || g.speed_spread >= 0.1)
    p.fail("speed_spread", "is a relative standard deviation: at least 0 and below 0.1");
  return g;
}

} // namespace trainsim
