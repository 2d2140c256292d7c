// A preset's figures at a model's precision (models/hardware_presets.hpp): the datasheet peak
// there and the sustained rates it scales, or the measured FP8 matmul rate.
#include <cstdio>
#include <string>

#include "models/compute_model.hpp"
#include "models/hardware_presets.hpp"

namespace trainsim {

double PrecisionPeaks::at(std::string_view precision) const {
  if (precision == "fp32") return fp32;
  if (precision == "fp16") return fp16;
  if (precision == "fp8") return fp8;
  return bf16;
}

std::optional<GpuSpec> preset_at_precision(const GpuPreset& preset, std::string_view precision,
                                           Fp8Recipe recipe) {
  double peak = preset.peaks.at(precision);
  if (peak <= 0) return std::nullopt;
  GpuSpec g = preset.gpu;
  double k = peak / g.peak.value();
  if (k == 1.0) return g;
  std::string p(precision);
  g.peak = FlopPerSecond(peak);
  g.gemm_peak = g.gemm_peak * k;
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.3g", k);
  std::string how =
      "the BF16 measurement x " + std::string(ratio) + " (the datasheet peaks' ratio)";
  if (precision == "fp8") g.wide_gemm_peak = gemm_ceiling(preset.gpu);
  if (precision == "fp8" && preset.fp8_gemm_peak.value() > 0)
    g.gemm_peak = preset.fp8_gemm_peak, how = preset.fp8_gemm_estimate;
  if (!how.empty()) g.estimates.push_back("gemm_peak at " + p + ": " + how); // empty: measured
  if (precision == "fp8" && recipe == Fp8Recipe::mxfp8 && preset.mxfp8_over_tensorwise != 1.0) {
    g.gemm_peak = g.gemm_peak * preset.mxfp8_over_tensorwise;
    std::snprintf(ratio, sizeof ratio, "%.4g", preset.mxfp8_over_tensorwise);
    g.estimates.push_back(std::string("gemm_peak at mxfp8: the FP8 rate x ") + ratio +
                          " (Transformer Engine's GEMM benchmark on B300: MXFP8 7.161 ms against "
                          "current scaling's 6.812 ms a layer)");
  }
  if (precision == "fp32") {
    for (auto* row : {&g.flash_attention.d64, &g.flash_attention.d128, &g.cudnn_attention.d64,
                      &g.cudnn_attention.d128})
      for (FlopPerSecond& r : *row) r = r * k;
    g.estimates.push_back("attention at fp32: the BF16 tables x the peaks' ratio");
  }
  return g;
}

} // namespace trainsim
