// The frontier's inputs: the knobs checked (validate, parse_duration), the hardware they give
// (resolve_hardware) and the model shape the baseline laws derive from a compute level
// (shape_for). docs/closed-form.md, section 2.
#include "models/frontier.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "models/error.hpp"

namespace trainsim {
namespace {

constexpr const char* kSource = "frontier"; // main prints "trainsim: frontier: ..."

std::string text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

void require(bool ok, const char* key, double value, const char* problem) {
  if (!ok) throw InputError(kSource, key, text(value), problem);
}

} // namespace

FrontierHardware resolve_hardware(const FrontierOptions& o) {
  const HardwarePreset& preset = hardware_preset(o.gpu);
  FrontierHardware hw;
  hw.gpu = preset.gpu;
  hw.gpu.matmul_efficiency = o.matmul_efficiency.value_or(preset.gpu.matmul_efficiency);
  hw.gpu.kernel_latency = o.kernel_latency.value_or(preset.gpu.kernel_latency) * o.latency_scale;
  hw.fabric.domain = preset.nvlink_domain;
  hw.fabric.nvlink = {o.nvlink_latency * o.latency_scale,
                      preset.nvlink_bandwidth * o.bandwidth_scale, "nvlink"};
  hw.fabric.network = {o.network_latency * o.latency_scale,
                       preset.network_bandwidth * o.bandwidth_scale, "network"};
  hw.collective = o.collective;
  return hw;
}

ModelShape shape_for(Flop compute, const FrontierOptions& o, bool moe) {
  ModelShape s;
  s.compute = compute;
  LayerShape& layer = s.layer;
  layer.kind = ModelKind::mlp;
  layer.experts = moe ? o.experts : 1;
  layer.top_k = moe ? o.top_k : 1;
  s.active_params = std::sqrt(compute.value() / (6.0 * o.tokens_per_param));
  s.total_params = s.active_params * layer.experts / layer.top_k;
  // N = 2 L d d_ff k = 2 ff k a^2 L^3 with d = a L.
  double per_layer_coeff = 2.0 * o.ff_ratio * layer.top_k * o.aspect_ratio * o.aspect_ratio;
  s.layers =
      std::max(1, static_cast<int>(std::lround(std::cbrt(s.active_params / per_layer_coeff))));
  layer.d_model = std::sqrt(s.active_params / (2.0 * o.ff_ratio * layer.top_k * s.layers));
  layer.d_ff = o.ff_ratio * layer.d_model;
  layer.bytes_per_word = Bytes(o.bytes_per_word);
  s.tokens = o.tokens_per_param * s.active_params;
  s.batch_tokens = std::min(s.tokens, o.batch_tokens_at_1e25 *
                                          std::pow(compute.value() / 1e25, o.batch_exponent));
  s.steps = s.tokens / s.batch_tokens;
  s.optimizer_bytes_per_param = Bytes(o.optimizer_bytes_per_param);
  return s;
}

void validate(const FrontierOptions& o) {
  (void)hardware_preset(o.gpu);
  require(o.duration.value() > 0 && std::isfinite(o.duration.value()), "duration",
          o.duration.value(), "must be a positive time (e.g. 3months, 7.776e6s)");
  require(o.tokens_per_param > 0, "tokens_per_param", o.tokens_per_param,
          "must be greater than zero");
  require(o.aspect_ratio > 0, "aspect_ratio", o.aspect_ratio,
          "must be greater than zero (d_model / layers)");
  require(o.ff_ratio > 0, "ff_ratio", o.ff_ratio, "must be greater than zero (d_ff / d_model)");
  require(o.batch_tokens_at_1e25 >= 1, "batch_coefficient", o.batch_tokens_at_1e25,
          "must be at least one token");
  require(o.batch_exponent >= 0 && o.batch_exponent < 1, "batch_exponent", o.batch_exponent,
          "must be in [0, 1)");
  require(o.experts >= 1, "experts", o.experts, "must be at least 1");
  require(o.top_k >= 1 && o.top_k <= o.experts, "top_k", o.top_k, "must be between 1 and experts");
  double eff = o.matmul_efficiency.value_or(0.8);
  require(eff > 0 && eff <= 1, "matmul_efficiency", eff, "must be in (0, 1]");
  double kl = o.kernel_latency.value_or(Seconds(0)).value();
  require(kl >= 0, "kernel_latency", kl, "must not be negative");
  require(o.nvlink_latency.value() >= 0, "nvlink_latency", o.nvlink_latency.value(),
          "must not be negative");
  require(o.network_latency.value() >= 0, "network_latency", o.network_latency.value(),
          "must not be negative");
  require(o.bandwidth_scale > 0, "bandwidth_scale", o.bandwidth_scale, "must be greater than zero");
  require(o.latency_scale >= 0, "latency_scale", o.latency_scale, "must not be negative");
  require(o.bytes_per_word > 0, "bytes_per_word", o.bytes_per_word, "must be greater than zero");
  require(o.optimizer_bytes_per_param >= 0, "optimizer_bytes_per_param",
          o.optimizer_bytes_per_param, "must not be negative");
  require(o.min_flop.value() > 0, "min_flop", o.min_flop.value(), "must be greater than zero");
  require(o.max_flop >= o.min_flop, "max_flop", o.max_flop.value(), "must be at least min_flop");
  require(o.points_per_decade >= 1 && o.points_per_decade <= 100, "points_per_decade",
          o.points_per_decade, "must be between 1 and 100");
  require(o.knee_fraction > 0 && o.knee_fraction <= 1, "knee_fraction", o.knee_fraction,
          "must be in (0, 1]");
  require(o.max_interleave >= 1, "max_interleave", o.max_interleave, "must be at least 1");
  require(o.max_tp_2d >= 1, "max_tp_2d", o.max_tp_2d, "must be at least 1");
  require(o.max_gpus >= 1, "max_gpus", o.max_gpus, "must be at least 1");
}

Seconds parse_duration(std::string_view text) {
  static const std::pair<std::string_view, double> units[] = {
      {"min", 60.0},      {"h", 3600.0},       {"hours", 3600.0},   {"d", 86400.0},
      {"days", 86400.0},  {"day", 86400.0},    {"weeks", 604800.0}, {"months", 2.592e6},
      {"month", 2.592e6}, {"years", 3.1536e7}, {"year", 3.1536e7}};
  for (const auto& [unit, seconds] : units) {
    if (text.size() <= unit.size() || text.substr(text.size() - unit.size()) != unit) continue;
    std::string number(text.substr(0, text.size() - unit.size()));
    while (!number.empty() && number.back() == ' ') number.pop_back(); // "3 months"
    char* end = nullptr;
    double v = std::strtod(number.c_str(), &end);
    if (!number.empty() && end == number.c_str() + number.size()) return Seconds(v * seconds);
  }
  try {
    return parse_seconds(text);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("'" + std::string(text) +
                                "' is not a duration (e.g. 3months, 90days, 2160h, 7.776e6s)");
  }
}

std::string to_string(CollectiveLatency c) {
  return c == CollectiveLatency::tree ? "tree" : "ring";
}

} // namespace trainsim
