#include "tools/io/provenance.hpp"

#include <cinttypes>
#include <cstdio>
#include <map>

#include "models/section_keys.hpp"
#include "models/workload.hpp"
#include "tools/io/version.hpp"
#include "topologies/spec.hpp"

namespace trainsim {
namespace {

using Json = nlohmann::ordered_json;

// A section's keys with the values the run used, in the table's order.
template <class Spec>
void add_keys(Json& j, const std::vector<SectionKey<Spec>>& keys, const Spec& spec) {
  for (const SectionKey<Spec>& k : keys) {
    std::optional<KeyValue> v = k.value(spec);
    if (!v) continue;
    Json& entry = j[k.result_name()];
    switch (v->kind) {
    case KeyValue::Kind::integer:
      entry = v->integer;
      break;
    case KeyValue::Kind::flag:
      entry = v->flag;
      break;
    case KeyValue::Kind::number:
      entry = v->number;
      break;
    case KeyValue::Kind::text:
      entry = v->text;
      break;
    }
  }
}

// Every key, the profile's as it applies (all off under the roofline), and the word size the
// precision gives.
Json model_json(const ModelSpec& m) {
  Json j = Json::object();
  add_keys(j, model_keys(), m);
  j["bytes_per_word"] = m.bytes_per_word.value();
  return j;
}

// The table by head dimension, one rate per sequence length of kAttentionSeqLens; null when
// the GPU has none.
Json attention_json(const AttentionRates& r) {
  if (!r.known()) return nullptr;
  Json rows = Json::object();
  for (auto [name, row] : {std::pair{"d64", &r.d64}, std::pair{"d128", &r.d128}}) {
    Json values = Json::array();
    for (FlopPerSecond v : *row) values.push_back(v.value());
    rows[name] = values;
  }
  return rows;
}

Json gpu_json(const GpuSpec& g) {
  Json j = {{"preset", g.preset}, {"name", g.name}};
  add_keys(j, gpu_keys(), g);
  j["flash_attention_flop_per_s"] = attention_json(g.flash_attention);
  if (g.cudnn_attention.known())
    j["cudnn_attention_flop_per_s"] = attention_json(g.cudnn_attention);
  return j;
}

// Every key, given or left at its default, alphabetical as result.json has always listed them.
Json topology_json(const topo::TopologySpec& topology) {
  std::map<std::string, std::string> sorted;
  for (const topo::TopologySetting& s : topo::topology_settings(topology)) sorted[s.key] = s.text;
  Json j = Json::object();
  for (const auto& [key, text] : sorted) j[key] = text;
  return j;
}

// Every key with the value the run used, and what the unset ones resolved to.
Json execution_json(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  Json j = Json::object();
  add_keys(j, execution_keys(), e);
  j["dp_bucket_bytes"] = dp_bucket_bytes(s.model, e).value();
  j["optimizer_bytes_per_param"] = e.optimizer_bytes_per_param.value();
  return j;
}

} // namespace

std::string input_hash(std::string_view text) {
  std::uint64_t h = 14695981039346656037ULL; // FNV-1a 64-bit offset basis and prime
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  char out[32];
  std::snprintf(out, sizeof out, "fnv1a64:%016" PRIx64, h);
  return out;
}

// The faults as the scenario names them, one line each (models/faults.hpp: describe()).
Json faults_json(const FaultSpec& f) {
  Json slow = Json::array(), links = Json::array(), failed = Json::array();
  for (const SlowGpus& g : f.slow_gpus) slow.push_back(describe(g));
  for (const DegradedLinks& l : f.degraded_links) links.push_back(describe(l));
  for (const FailedPart& p : f.failed) failed.push_back(describe(p));
  return {{"slow_gpus", slow}, {"degraded_links", links}, {"failed", failed}};
}

nlohmann::ordered_json provenance_json(const Scenario& s) {
  Json topology = topology_json(s.system.topology);
  nlohmann::ordered_json out = {{"trainsim", version()},
          {"input", {{"file", s.file}, {"hash", s.input_hash}}},
          {"gpu_preset", s.system.gpu.preset.empty() ? "none" : s.system.gpu.preset},
          {"topology", s.system.topology.generator},
          {"scenario",
           {{"model", model_json(s.model)},
            {"system", {{"gpu", gpu_json(s.system.gpu)}, {"topology", topology}}},
            {"execution", execution_json(s)}}}};
  if (s.faults.any()) out["scenario"]["faults"] = faults_json(s.faults);
  if (s.reliability != ReliabilitySpec{}) {
    Json r = Json::object();
    add_keys(r, reliability_keys(), s.reliability);
    out["scenario"]["reliability"] = r;
  }
  return out;
}

std::string hardware_line(const Scenario& s) {
  std::string params;
  for (const auto& [key, value] : s.system.topology.given) // as written, not the parsed values
    if (key != "generator") params += (params.empty() ? "" : ", ") + key + " " + value;
  const std::string& preset = s.system.gpu.preset;
  std::string gpu = preset.empty()       ? "a GPU given in code"
                    : preset == "custom" ? "a custom GPU"
                                         : preset;
  if (s.system.gpu.name != preset) gpu += " (" + s.system.gpu.name + ")";
  return gpu + " on " + s.system.topology.generator + " (" + params +
         "; other keys at their defaults)";
}

std::string origin_line(const Scenario& s) {
  return "trainsim " + version() + ", input " +
         (s.input_hash.empty() ? "built in code" : s.input_hash);
}

} // namespace trainsim
