#include "tools/io/scenario_writer.hpp"

#include <cmath>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "models/check.hpp"
#include "models/section_keys.hpp"
#include "models/hardware_presets.hpp"
#include "models/params.hpp"
#include "topologies/spec.hpp"

namespace trainsim {
namespace {

template <class T>
void pair(YAML::Emitter& out, const char* key, const T& value) {
  out << YAML::Key << key << YAML::Value << Params::text_of(value);
}

void model(YAML::Emitter& out, const ModelSpec& m) {
  out << YAML::Key << "model" << YAML::Value << YAML::BeginMap;
  for (const ModelKey& k : model_keys())
    if (k.written(m)) out << YAML::Key << k.key << YAML::Value << k.value(m)->text;
  out << YAML::EndMap;
}

bool same_rates(const AttentionRates& a, const AttentionRates& b, double scale) {
  for (size_t i = 0; i < a.d64.size(); ++i)
    if (std::abs(a.d64[i] / (b.d64[i] * scale) - 1) > 1e-9 ||
        std::abs(a.d128[i] / (b.d128[i] * scale) - 1) > 1e-9)
      return false;
  return true;
}

// Whether an attention table is one rate, which its key (flash_attention, cudnn_attention)
// states.
bool one_attention_rate(const GpuSpec& g, const std::string& key) {
  for (const GpuKey& k : gpu_keys())
    if (k.key == key) return k.value(g).has_value();
  return false;
}

// Whether both attention tables are the preset's (at the GPU's peak) or one rate each.
bool attention_written(const GpuSpec& g, const GpuSpec& base) {
  double k = g.peak / base.peak;
  return (same_rates(g.flash_attention, base.flash_attention, k) ||
          one_attention_rate(g, "flash_attention")) &&
         (same_rates(g.cudnn_attention, base.cudnn_attention, k) ||
          one_attention_rate(g, "cudnn_attention"));
}

// The figures a `gpu` mapping can override, written where they differ from `base` (every one
// the GPU has when `all`).
void figures(YAML::Emitter& out, const GpuSpec& g, const GpuSpec& base, bool all) {
  for (const GpuKey& k : gpu_keys()) {
    std::optional<KeyValue> v = k.value(g);
    if (!v) continue;
    std::optional<KeyValue> b = k.value(base);
    if (all || !b || !same_value(*v, *b)) out << YAML::Key << k.key << YAML::Value << v->text;
  }
}

// A preset's figures are written as overrides of the preset at the model's precision, which the
// loader starts from.
void gpu(YAML::Emitter& out, const GpuSpec& g, const ModelSpec& m) {
  out << YAML::Key << "gpu" << YAML::Value << YAML::BeginMap;
  const GpuPreset* preset = find_gpu_preset(g.preset);
  std::optional<GpuSpec> base;
  if (preset != nullptr) base = preset_at_precision(*preset, m.precision, m.fp8_recipe);
  if (base) {
    pair(out, "preset", g.preset);
    TRAINSIM_CHECK(attention_written(g, *base) && g.nvlink_collectives == base->nvlink_collectives,
                   "a GPU whose attention table or NCCL curve no scenario key gives");
    figures(out, g, *base, false);
  } else {
    TRAINSIM_CHECK(!g.nvlink_collectives.known() &&
                       (!g.flash_attention.known() || one_attention_rate(g, "flash_attention")) &&
                       (!g.cudnn_attention.known() || one_attention_rate(g, "cudnn_attention")),
                   "a GPU without a preset but with measured tables");
    figures(out, g, g, true);
  }
  if (g.name != g.preset) pair(out, "name", g.name);
  out << YAML::EndMap;
}

void system(YAML::Emitter& out, const SystemSpec& s, const ModelSpec& m) {
  out << YAML::Key << "system" << YAML::Value << YAML::BeginMap;
  gpu(out, s.gpu, m);
  out << YAML::Key << "topology" << YAML::Value << YAML::BeginMap;
  for (const topo::TopologySetting& setting : topo::topology_settings(s.topology))
    out << YAML::Key << setting.key << YAML::Value << setting.text;
  out << YAML::EndMap << YAML::EndMap;
}

void execution(YAML::Emitter& out, const ExecutionSpec& e) {
  TRAINSIM_CHECK(e.optimizer_bytes_per_param.value() == 12.0 ||
                     e.optimizer_bytes_per_param.value() == 8.0,
                 "optimizer state other than FP32 or BF16 moments has no scenario key");
  out << YAML::Key << "execution" << YAML::Value << YAML::BeginMap;
  for (const ExecutionKey& k : execution_keys())
    if (k.written(e)) out << YAML::Key << k.key << YAML::Value << k.value(e)->text;
  out << YAML::EndMap;
}

void slow_gpus(YAML::Emitter& out, const std::vector<SlowGpus>& all) {
  out << YAML::Key << "slow_gpus" << YAML::Value << YAML::BeginSeq;
  for (const SlowGpus& g : all) {
    out << YAML::BeginMap;
    switch (g.which) {
    case SlowGpus::Which::rank:
      out << YAML::Key << "rank" << YAML::Value << g.index;
      break;
    case SlowGpus::Which::node:
      out << YAML::Key << "node" << YAML::Value << g.index;
      break;
    case SlowGpus::Which::fraction:
      out << YAML::Key << "fraction" << YAML::Value << Params::text_of(g.fraction);
      out << YAML::Key << "seed" << YAML::Value << g.seed;
      break;
    }
    out << YAML::Key << "factor" << YAML::Value << Params::text_of(g.factor) << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void degraded_links(YAML::Emitter& out, const std::vector<DegradedLinks>& all) {
  out << YAML::Key << "degraded_links" << YAML::Value << YAML::BeginSeq;
  for (const DegradedLinks& l : all) {
    out << YAML::BeginMap;
    switch (l.which) {
    case DegradedLinks::Which::nic:
      out << YAML::Key << "nic" << YAML::Value << l.rank;
      break;
    case DegradedLinks::Which::link:
      out << YAML::Key << "link" << YAML::Value << l.link;
      break;
    case DegradedLinks::Which::tier:
      out << YAML::Key << "tier" << YAML::Value << l.tier;
      break;
    }
    out << YAML::Key << "factor" << YAML::Value << Params::text_of(l.factor);
    out << YAML::Key << "extra_latency" << YAML::Value << Params::text_of(l.extra_latency);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void failed(YAML::Emitter& out, const std::vector<FailedPart>& all) {
  out << YAML::Key << "failed" << YAML::Value << YAML::BeginSeq;
  for (const FailedPart& f : all)
    out << YAML::BeginMap << YAML::Key
        << (f.which == FailedPart::Which::link ? "link" : "switch") << YAML::Value << f.name
        << YAML::EndMap;
  out << YAML::EndSeq;
}

void faults(YAML::Emitter& out, const FaultSpec& f) {
  if (!f.any()) return;
  out << YAML::Key << "faults" << YAML::Value << YAML::BeginMap;
  if (!f.slow_gpus.empty()) slow_gpus(out, f.slow_gpus);
  if (!f.degraded_links.empty()) degraded_links(out, f.degraded_links);
  if (!f.failed.empty()) failed(out, f.failed);
  out << YAML::EndMap;
}

void reliability(YAML::Emitter& out, const ReliabilitySpec& r) {
  if (r == ReliabilitySpec{}) return;
  out << YAML::Key << "reliability" << YAML::Value << YAML::BeginMap;
  for (const ReliabilityKey& k : reliability_keys())
    if (k.written(r)) out << YAML::Key << k.key << YAML::Value << k.value(r)->text;
  out << YAML::EndMap;
}

} // namespace

std::string scenario_yaml(const Scenario& s, const std::string& comment) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  model(out, s.model);
  system(out, s.system, s.model);
  execution(out, s.execution);
  faults(out, s.faults);
  reliability(out, s.reliability);
  out << YAML::EndMap;
  std::ostringstream text;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) text << "# " << line << "\n";
  text << out.c_str() << "\n";
  return text.str();
}

} // namespace trainsim
