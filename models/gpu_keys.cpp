// The GPU's figures (system.gpu), each declared once: the loader reads them over a preset's,
// the writer states the ones that differ from it and result.json lists them
// (models/section_keys.hpp). A preset's figures and their sources: models/hardware_presets.cpp.
#include "models/section_keys.hpp"

#include <algorithm>

namespace trainsim {
namespace {

using G = GpuSpec;

/// A figure always in effect: a quantity or fraction, positive, the preset's by default.
template <class T>
GpuKey figure(const char* key, T G::*member, const char* result_key) {
  return {key, [=](const Params& p, G& g) { g.*member = p.get_positive_or(key, g.*member); },
          [=](const G& g) { return std::optional(number_value(g.*member)); }, always_written<G>,
          result_key};
}

/// A figure of the per-operator model that a GPU may lack (0: priced like the roofline).
template <class T>
GpuKey optional_figure(const char* key, T G::*member, const char* result_key) {
  GpuKey k = figure(key, member, result_key);
  k.value = [=](const G& g) -> std::optional<KeyValue> {
    if (!(g.*member > T{})) return std::nullopt;
    if constexpr (std::is_same_v<T, int>)
      return integer_value(g.*member);
    else
      return number_value(g.*member);
  };
  return k;
}

/// A fraction of something the GPU has, at most 1.
GpuKey fraction(const char* key, double G::*member, const char* of) {
  GpuKey k = figure(key, member, key);
  auto read = k.read;
  k.read = [=](const Params& p, G& g) {
    read(p, g);
    if (g.*member > 1.0)
      p.fail(key, std::string("is a fraction of ") + of + " and cannot exceed 1");
  };
  return k;
}

// A new peak scales what the GPU achieves of it (gemm_peak, the attention table) unless those
// are given too: a what-if GPU with twice the compute keeps the preset's efficiency.
void scale_rates(G& g, double k) {
  g.gemm_peak = g.gemm_peak * k;
  g.wide_gemm_peak = g.wide_gemm_peak * k;
  for (AttentionRates* table : {&g.flash_attention, &g.cudnn_attention})
    for (auto* row : {&table->d64, &table->d128})
      for (FlopPerSecond& r : *row) r = r * k;
}

GpuKey peak() {
  GpuKey k = figure("peak", &G::peak, "peak_flop_per_s");
  k.read = [](const Params& p, G& g) {
    FlopPerSecond preset_peak = g.peak;
    g.peak = p.get_positive_or("peak", g.peak);
    if (p.has("peak")) scale_rates(g, g.peak / preset_peak);
  };
  return k;
}

// matmul_efficiency and gemm_peak both say how fast matmuls run: the per-operator model takes
// gemm_peak, the roofline peak x matmul_efficiency. A preset brings a measured gemm_peak, which
// would leave a matmul_efficiency the user set acting on the roofline only, so setting it
// replaces the preset's gemm_peak by peak x matmul_efficiency; setting both is refused.
GpuKey matmul_efficiency() {
  GpuKey k = fraction("matmul_efficiency", &G::matmul_efficiency, "peak");
  auto read = k.read;
  k.read = [read](const Params& p, G& g) {
    read(p, g);
    if (!p.has("matmul_efficiency")) return;
    if (p.has("gemm_peak"))
      p.fail("matmul_efficiency",
             "and gemm_peak both set the matmul rate (gemm_peak is peak x matmul_efficiency); "
             "give one");
    if (g.gemm_peak.value() > 0) g.gemm_peak = g.peak * g.matmul_efficiency;
  };
  return k;
}

GpuKey kernel_latency() {
  return {"kernel_latency",
          [](const Params& p, G& g) {
            g.kernel_latency = p.get_or("kernel_latency", g.kernel_latency);
            if (g.kernel_latency.value() < 0) p.fail("kernel_latency", "must not be negative");
          },
          [](const G& g) { return std::optional(number_value(g.kernel_latency)); },
          always_written<G>, "kernel_latency_s"};
}

// One rate for every head dimension and sequence length. A preset's measured table is no one
// value, so it has none here: result.json gives the table (tools/io/provenance.cpp) and the
// writer leaves it to the preset.
GpuKey attention_table(const char* key, AttentionRates G::*member, const char* result_key) {
  return {key,
          [=](const Params& p, G& g) {
            if (!p.has(key)) return;
            auto rate = p.get_positive<FlopPerSecond>(key);
            AttentionRates& r = g.*member;
            r.d64.fill(rate);
            r.d128.fill(rate);
            r.estimate.clear();
          },
          [=](const G& g) -> std::optional<KeyValue> {
            const AttentionRates& r = g.*member;
            auto same = [&](FlopPerSecond v) { return v.value() == r.d64[0].value(); };
            if (!r.known() || !std::all_of(r.d64.begin(), r.d64.end(), same) ||
                !std::all_of(r.d128.begin(), r.d128.end(), same))
              return std::nullopt;
            return number_value(r.d64[0]);
          },
          always_written<G>, result_key};
}

GpuKey speed_spread() {
  return {"speed_spread",
          [](const Params& p, G& g) {
            g.speed_spread = p.get_or("speed_spread", g.speed_spread);
            if (g.speed_spread < 0.0 || g.speed_spread >= 0.1)
              p.fail("speed_spread", "is a relative standard deviation: at least 0 and below 0.1");
          },
          [](const G& g) { return std::optional(number_value(g.speed_spread)); },
          always_written<G>};
}

std::vector<GpuKey> declare() {
  return {peak(), matmul_efficiency(),
          figure("hbm_bandwidth", &G::hbm_bandwidth, "hbm_bandwidth_bytes_per_s"),
          figure("hbm_capacity", &G::hbm_capacity, "hbm_capacity_bytes"), kernel_latency(),
          // The per-operator model's figures (docs/compute-model.md).
          optional_figure("sms", &G::sms, "sms"),
          optional_figure("gemm_peak", &G::gemm_peak, "gemm_peak_flop_per_s"),
          attention_table("flash_attention", &G::flash_attention, "flash_attention_flop_per_s"),
          attention_table("cudnn_attention", &G::cudnn_attention, "cudnn_attention_flop_per_s"),
          fraction("hbm_efficiency", &G::hbm_efficiency, "hbm_bandwidth"), speed_spread(),
          figure("host_memory_bandwidth", &G::host_memory_bandwidth,
                 "host_memory_bandwidth_bytes_per_s")};
}

} // namespace

const std::vector<GpuKey>& gpu_keys() {
  static const std::vector<GpuKey> keys = declare();
  return keys;
}

} // namespace trainsim
