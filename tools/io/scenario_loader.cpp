#include "tools/io/scenario_loader.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <new>
#include <cstring>
#include <cstdio>
#include <optional>
#include <set>
#include <variant>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "models/hardware_presets.hpp"
#include "models/plausibility.hpp"
#include "models/scenario_rules.hpp"
#include "models/collectives.hpp"
#include "models/section_keys.hpp"
#include "sim/log.hpp"
#include "tools/io/scenario_reader.hpp"
#include "tools/io/yaml_section.hpp"
#include "topologies/spec.hpp"

namespace trainsim {
namespace {

/// The preset whose name or alias is closest to `word`, or "".
std::string closest_preset(const std::string& word) {
  std::vector<std::string> names = gpu_preset_names();
  for (const GpuPreset& g : gpu_presets())
    if (!g.alias.empty()) names.push_back(g.alias);
  std::string best = closest_match(word, names);
  const GpuPreset* g = best.empty() ? nullptr : find_gpu_preset(best);
  return g == nullptr ? "" : g->name;
}

const GpuPreset& read_preset(const Params& p, const std::string& key) {
  std::string name = p.get<std::string>(key);
  if (const GpuPreset* g = find_gpu_preset(name)) return *g;
  std::string best = closest_preset(name);
  p.fail(key, "unknown GPU preset; known: " + listed(gpu_preset_names()) +
                  (best.empty() ? "" : " (did you mean '" + best + "'?)"));
}

/// The presets `has` holds for, by name.
std::vector<std::string> presets_with(const std::function<bool(const GpuPreset&)>& has) {
  std::vector<std::string> names;
  for (const GpuPreset& g : gpu_presets())
    if (has(g)) names.push_back(g.name);
  return names;
}

// A preset's figures at the model's precision: its datasheet peak there, its sustained rates
// scaled with it (models/hardware_presets.hpp).
GpuSpec at_precision(const GpuPreset& preset, const ModelSpec& m, const std::string& file) {
  const std::string& precision = m.precision;
  if (auto g = preset_at_precision(preset, precision, m.fp8_recipe)) return *g;
  auto has = [&](const GpuPreset& g) { return g.peaks.at(precision) > 0; };
  throw InputError(file, "model.precision", precision,
                   "the " + preset.name + " has no " + precision +
                       " tensor cores; use bf16 or fp16, or a GPU that has them (" +
                       listed(presets_with(has)) + ")");
}

// Without a preset there is nothing to take the datasheet figures from: `gpu: {name: a100}`
// used to keep the H100's figures under an A100's name.
void require_figures(const Params& p) {
  std::vector<std::string> missing;
  for (const char* key : {"peak", "hbm_bandwidth", "hbm_capacity"})
    if (!p.has(key)) missing.push_back(key);
  if (missing.empty()) return;
  std::string hint = p.has("name") ? closest_preset(p.get<std::string>("name")) : "";
  throw InputError(p.file(), "system.gpu: has no preset, so " + listed(missing) +
                                 (missing.size() > 1 ? " are" : " is") +
                                 " missing: give every figure or a preset (" +
                                 listed(gpu_preset_names()) + ")" +
                                 (hint.empty() ? "" : " (did you mean 'preset: " + hint + "'?)"));
}

// One warning line per value that parses but no real machine has (models/plausibility.hpp);
// the value is still used.
void warn_if_implausible(const Params& p, const std::string& key, Plausible what, double si) {
  std::string problem = implausibility(what, si);
  if (problem.empty() || !p.has(key)) return;
  logger("trainsim.input")
      ->warn("{}: {} = '{}': {}; using it anyway", p.file(), p.qualified(key), p.values().at(key),
             problem);
}

void warn_implausible_gpu(const Params& p, const GpuSpec& g) {
  warn_if_implausible(p, "peak", Plausible::gpu_peak, g.peak.value());
  warn_if_implausible(p, "hbm_bandwidth", Plausible::hbm_bandwidth, g.hbm_bandwidth.value());
  warn_if_implausible(p, "hbm_capacity", Plausible::hbm_capacity, g.hbm_capacity.value());
  warn_if_implausible(p, "kernel_latency", Plausible::kernel_latency, g.kernel_latency.value());
}

/// A node's GPU-to-NIC link is the GPU's host interface: a preset's (PCIe 4 on A100, 5 on
/// Hopper, 6 on B200) where the topology sets no pcie_bandwidth. A NIC faster than the link its
/// traffic crosses is capped by it, which deserves a word.
void fit_host_link(Scenario& s) {
  topo::TopologySpec& spec = s.system.topology;
  BytesPerSecond* host = nullptr;
  BytesPerSecond nic;
  if (auto* clos = std::get_if<topo::FatTreeParams>(&spec.params))
    host = &clos->pcie_bandwidth, nic = clos->nic_bandwidth;
  else if (auto* fly = std::get_if<topo::DragonflyParams>(&spec.params))
    host = &fly->node.pcie_bandwidth, nic = fly->node.nic_bandwidth;
  if (host == nullptr) return;
  const GpuPreset* preset = find_gpu_preset(s.system.gpu.preset);
  bool given = spec.given.count("pcie_bandwidth") > 0;
  if (preset != nullptr && !given) *host = preset->host_link;
  if (nic <= *host) return;
  std::string nic_text =
      spec.given.count("nic_bandwidth") ? spec.given.at("nic_bandwidth") : format(nic);
  std::string whose;
  if (!given && preset != nullptr)
    whose = ", the " + s.system.gpu.preset + "'s " + preset->host_link_name;
  logger("trainsim.input")
      ->warn("{}: system.topology.nic_bandwidth = '{}': faster than the GPU's host link it "
             "crosses (pcie_bandwidth {}{}), which caps it; set pcie_bandwidth to the NIC's "
             "real path",
             s.file, nic_text, format(*host), whose);
}

/// `gpu: a100-sxm-80gb`, or a mapping: an optional `preset`, overrides of its figures and
/// an optional display `name`. Without the section, the H100 SXM. A preset's figures are taken
/// at the model's precision and FP8 recipe; a GPU given figure by figure has its peak at it
/// already. A speed spread the file asks for where it would not act on the model
/// (ModelSpec::applied_profile) is refused.
GpuSpec read_gpu(const Section& system, const std::string& file, const ModelSpec& m) {
  auto it = system.children.find("gpu");
  if (it == system.children.end()) return at_precision(*find_gpu_preset("h100-sxm"), m, file);
  if (it->second.IsScalar())
    return at_precision(read_preset(Params(file, "system", {{"gpu", it->second.Scalar()}}), "gpu"),
                        m, file);
  if (!it->second.IsMap())
    throw InputError(file, "system.gpu", "",
                     std::string("must be a preset name or a mapping, found ") +
                         node_kind(it->second));
  Params p = read_section(it->second, file, "system.gpu", {}).values;
  GpuSpec g;
  g.matmul_efficiency = 0.8; // the project baseline (hardware_presets.cpp), not a datasheet figure
  g.kernel_latency = Seconds(4e-6);
  g.name = g.preset = "custom";
  if (p.has("preset"))
    g = at_precision(read_preset(p, "preset"), m, file);
  else
    require_figures(p);
  g = read_keys_over(gpu_keys(), p, g);
  // The preset's spread stays inert under the roofline; one the file asks for would be a key
  // that silently does nothing.
  if (p.has("speed_spread") && g.speed_spread > 0.0 && !m.applied_profile().uneven_gpus)
    p.fail("speed_spread", "applies to a transformer priced per operator with model.uneven_gpus "
                           "on (the roofline runs every GPU at the figures)");
  warn_implausible_gpu(p, g);
  g.name = p.get_or<std::string>("name", g.name);
  p.reject_unknown();
  return g;
}

// MXFP8's block scales need Blackwell's tensor cores; Hopper has none (Transformer Engine runs
// the recipe on Blackwell only). A GPU given figure by figure is taken at its word.
void require_mxfp8(const ModelSpec& m, const GpuSpec& g, const std::string& file) {
  const GpuPreset* preset = find_gpu_preset(g.preset);
  if (m.fp8_recipe != Fp8Recipe::mxfp8 || preset == nullptr || preset->mxfp8) return;
  throw InputError(file, "model.fp8_recipe", "mxfp8",
                   "needs Blackwell's MXFP8 tensor cores (" +
                       listed(presets_with([](const GpuPreset& p) { return p.mxfp8; })) +
                       "); the " + g.preset + " has none: use tensorwise or blockwise");
}

// One entry of faults.slow_gpus: exactly one of rank, node or fraction (with its seed), and
// the factor of the kernel rate the GPUs keep. The ranges are the scenario rules'
// (models/faults.cpp), which code-built scenarios meet too.
SlowGpus read_slow_gpus(const Params& p, const std::string& path) {
  int named = static_cast<int>(p.has("rank")) + static_cast<int>(p.has("node")) +
              static_cast<int>(p.has("fraction"));
  if (named != 1)
    throw InputError(p.file(), path + ": " +
                                   (named == 0 ? "names no GPUs: give one of rank, node or fraction"
                                               : "names GPUs more than one way: give one of rank, "
                                                 "node or fraction"));
  SlowGpus g;
  if (p.has("rank")) g.which = SlowGpus::Which::rank, g.index = p.get<int>("rank");
  if (p.has("node")) g.which = SlowGpus::Which::node, g.index = p.get<int>("node");
  if (p.has("fraction")) {
    g.which = SlowGpus::Which::fraction;
    g.fraction = p.get<double>("fraction");
    g.seed = p.get_or("seed", 0);
  }
  g.factor = p.get<double>("factor");
  p.reject_unknown();
  return g;
}

// One entry of faults.degraded_links: exactly one of nic (a rank), link (its ends' names) or
// tier, and the factor of the bandwidth it keeps, with extra latency if any.
DegradedLinks read_degraded_links(const Params& p, const std::string& path) {
  int named = static_cast<int>(p.has("nic")) + static_cast<int>(p.has("link")) +
              static_cast<int>(p.has("tier"));
  if (named != 1)
    throw InputError(p.file(), path + ": " +
                                   (named == 0 ? "names no link: give one of nic, link or tier"
                                               : "names links more than one way: give one of "
                                                 "nic, link or tier"));
  DegradedLinks l;
  if (p.has("nic")) l.which = DegradedLinks::Which::nic, l.rank = p.get<int>("nic");
  if (p.has("link")) l.which = DegradedLinks::Which::link, l.link = p.get<std::string>("link");
  if (p.has("tier")) l.which = DegradedLinks::Which::tier, l.tier = p.get<std::string>("tier");
  l.factor = p.get_or("factor", 1.0);
  l.extra_latency = p.get_or("extra_latency", Seconds());
  if (!p.has("factor") && !p.has("extra_latency"))
    throw InputError(p.file(), path + ": degrades nothing: give factor, extra_latency or both");
  p.reject_unknown();
  return l;
}

// One entry of faults.failed: exactly one of link (its ends' names) or switch (its name).
FailedPart read_failed(const Params& p, const std::string& path) {
  if (p.has("link") == p.has("switch"))
    throw InputError(p.file(), path + ": " +
                                   (p.has("link") ? "names a link and a switch: give one per entry"
                                                  : "names nothing: give link or switch"));
  FailedPart f;
  if (p.has("link")) f.which = FailedPart::Which::link, f.name = p.get<std::string>("link");
  if (p.has("switch"))
    f.which = FailedPart::Which::network_switch, f.name = p.get<std::string>("switch");
  p.reject_unknown();
  return f;
}

// A list under `key` of `faults`, each entry read by `read`.
template <class Entry, class Read>
std::vector<Entry> read_list(const Section& faults, const std::string& key, const std::string& file,
                             Read read) {
  std::vector<Entry> out;
  auto list = faults.children.find(key);
  if (list == faults.children.end()) return out;
  if (!list->second.IsSequence())
    throw InputError(file, "faults." + key, node_kind(list->second),
                     "must be a list of entries (docs/scenario-format.md, faults)");
  for (size_t i = 0; i < list->second.size(); ++i) {
    std::string path = "faults." + key + "[" + std::to_string(i) + "]";
    out.push_back(read(read_section(list->second[i], file, path, {}).values, path));
  }
  return out;
}

FaultSpec read_faults(const Section& top, const std::string& file) {
  FaultSpec f;
  auto it = top.children.find("faults");
  if (it == top.children.end()) return f;
  const std::vector<std::string> lists{"slow_gpus", "degraded_links", "failed"};
  Section faults = read_section(it->second, file, "faults", lists);
  faults.values.reject_unknown(lists);
  f.slow_gpus = read_list<SlowGpus>(faults, "slow_gpus", file, read_slow_gpus);
  f.degraded_links = read_list<DegradedLinks>(faults, "degraded_links", file, read_degraded_links);
  f.failed = read_list<FailedPart>(faults, "failed", file, read_failed);
  return f;
}

} // namespace

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(file,
                     "line " + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  if (root.IsNull() && text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(file, "the file is empty");
  return root;
}

Scenario read_scenario(const YAML::Node& root, const std::string& file) {
  const std::vector<std::string> parts{"model", "system", "execution", "faults", "reliability"};
  Section top = read_section(root, file, "", parts);
  (void)top.values.get_or<std::string>("description", "");
  top.values.reject_unknown(parts);
  Scenario s;
  s.file = file;
  s.model = read_keys(model_keys(),
                      read_section(child(top, "model", file, ""), file, "model", {}).values);
  Section system =
      read_section(child(top, "system", file, ""), file, "system", {"gpu", "topology"});
  system.values.reject_unknown({"gpu", "topology"});
  s.system.gpu = read_gpu(system, file, s.model);
  require_mxfp8(s.model, s.system.gpu, file);
  Params topology =
      read_section(child(system, "topology", file, "system"), file, "system.topology", {}).values;
  s.execution =
      read_keys(execution_keys(),
                read_section(child(top, "execution", file, ""), file, "execution", {}).values);
  // The only reading of the section's keys: everything after takes the typed spec. After the
  // execution section, in the order the file is read; the rules across keys come after.
  s.system.topology = topo::parse_topology(topology);
  s.faults = read_faults(top, file);
  if (auto it = top.children.find("reliability"); it != top.children.end())
    s.reliability = read_keys(reliability_keys(),
                              read_section(it->second, file, "reliability", {}).values);
  fit_host_link(s);
  return s;
}

LoadedScenario build_scenario(Scenario s, const LoadOptions& options) {
  // Priced before the graph is built: a fabric of millions of GPUs would otherwise allocate
  // gigabytes only to be refused (fuzz_scenario found a 4.56M-GPU torus; a 10M-GPU fat-tree
  // took 20 s and 7 GB).
  return build_unguarded(std::move(s), options.force_memory,
                         [&](const Scenario& checked, const topo::TopologySize& size) {
                           check_resources(checked, size, options.footprint, options.guard);
                         });
}

} // namespace trainsim
