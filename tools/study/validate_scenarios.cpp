// Exact cases and the bound on every scenario: sections 1 and 2 of docs/validation.md.
#include "tools/study/validate_scenarios.hpp"

#include <algorithm>
#include <numeric>
#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <utility>

#include "sim/log.hpp"
#include "sim/progress.hpp"

#include "models/error.hpp"
#include "models/layout.hpp"
#include "models/section_keys.hpp"
#include "models/hardware_presets.hpp"
#include "models/workload.hpp"
#include "models/input_file.hpp"
#include "sim/simulation.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tools/study/evaluate.hpp"
#include "tools/study/run_cost.hpp"
#include "tools/study/validation.hpp"
#include "tools/study/validation_children.hpp"
#include "topologies/spec.hpp"

namespace trainsim::validation {

Scenario make_scenario(std::string label, ModelSpec model, topo::TopologySpec topology,
                       ExecutionSpec execution) {
  Scenario s;
  s.file = std::move(label);
  s.model = std::move(model);
  s.system.gpu = find_gpu_preset("h100-sxm")->gpu; // as a file without system.gpu
  s.system.topology = std::move(topology);
  s.execution = std::move(execution);
  return s;
}

ModelSpec mlp_block(int layers, long d_ff) {
  ModelSpec m;
  m.kind = ModelKind::mlp;
  m.layers = layers;
  m.d_model = 4096;
  m.d_ff = d_ff;
  m.seq_len = 2048;
  return m;
}

topo::TopologySpec one_leaf_fat_tree(int nodes, int gpus_per_node) {
  topo::FatTreeParams p;
  p.nodes = nodes;
  p.gpus_per_node = gpus_per_node;
  p.leaf_down_ports = nodes * gpus_per_node;
  return p;
}

ExecutionSpec grid(int dp, int tp, int pp, long global_batch) {
  ExecutionSpec e;
  e.dp = dp, e.tp = tp, e.pp = pp;
  e.global_batch = global_batch;
  return e;
}

Measured measure(const LoadedScenario& loaded, sim::Fidelity fidelity, bool link_stats,
                 bool bundle_replicas) {
  sim::SimOptions options;
  options.fidelity = fidelity;
  options.link_stats = link_stats; // the blame names the busiest link
  options.bundle_replicas = bundle_replicas;
  return evaluate(loaded, options, 1);
}

std::string blame(const Measured& m) { return trainsim::blame(m.summary); }

// "compute 70%, dp_comm 18%, tp_comm 10%": the simulated step's categories over 5% of it.
std::string shares(const StepSummary& s) {
  std::string out;
  for (const auto& [category, time] : s.breakdown) {
    double share = time / s.step_time;
    if (share < 0.05) continue;
    char item[48];
    std::snprintf(item, sizeof item, "%s%s %.0f%%", out.empty() ? "" : ", ", sim::name(category),
                  100 * share);
    out += item;
  }
  return out;
}

std::optional<LoadedScenario> accepted(const std::function<LoadedScenario()>& parse) {
  try {
    return parse();
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::string parallelism(const ExecutionSpec& e) {
  std::string out = "dp" + std::to_string(e.dp) + " tp" + std::to_string(e.tp);
  if (e.tp_2d > 1) out.append("x").append(std::to_string(e.tp_2d)); // append(): GCC 12 -Wrestrict
  out += " pp" + std::to_string(e.pp);
  if (e.ep > 1) out += " ep" + std::to_string(e.ep);
  return out + " m" + std::to_string(e.microbatches());
}

std::string features(const Scenario& sc) {
  const ExecutionSpec& e = sc.execution;
  std::string out = parallelism(e) + " " + to_string(e.schedule);
  if (e.schedule == PipelineSchedule::interleaved)
    out.append("x").append(std::to_string(e.interleave));
  if (e.recompute != Recompute::none) out += " recompute " + to_string(e.recompute);
  if (e.sequence_parallel) out += " sp";
  if (e.tp_overlap) out += " tp_overlap";
  if (e.delayed_update) out += " delayed_update";
  if (e.zero > 0) out += " zero" + std::to_string(e.zero);
  // The other options the random scenarios draw (RandomDraw), as the key table writes them.
  static const std::set<std::string> above{"recompute", "sequence_parallel", "tp_overlap",
                                           "delayed_update", "zero"};
  for (const ExecutionKey& key : execution_keys()) {
    if (!key.draw || above.contains(key.key)) continue;
    KeyValue value = *key.value(e);
    if (same_value(value, *key.value(ExecutionSpec{}))) continue;
    out += " " + key.key + (value.kind == KeyValue::Kind::flag ? "" : " " + value.text);
  }
  return out + ", " + sc.system.topology.generator;
}

} // namespace trainsim::validation

namespace trainsim {
namespace {

using validation::grid;
using validation::make_scenario;
using validation::mlp_block;
using validation::one_leaf_fat_tree;

// 8 transformer layers of d_model 4096 (32 heads of 128) on sequences of 2048 tokens.
ModelSpec transformer() {
  ModelSpec m = mlp_block();
  m.kind = ModelKind::transformer;
  m.heads = 32;
  return m;
}

ExecutionSpec with_ep(ExecutionSpec e, int ep) {
  e.ep = ep;
  return e;
}

// Each case's scenario, named by its file label.
std::vector<Scenario> exact_specs(bool quick) {
  const ModelSpec mlp = mlp_block(), kTransformer = transformer();
  std::vector<Scenario> out;
  auto add = [&](const std::string& name, const ModelSpec& model, topo::TopologySpec topology,
                 ExecutionSpec e) {
    out.push_back(make_scenario(name, model, std::move(topology), e));
    // Every GPU the median one: the closed form prices the preset's figures, and a case is exact
    // only if the simulator does too (models/gpu_speed.hpp; the other sections keep the spread).
    out.back().system.gpu.speed_spread = 0;
  };
  // DP: one GPU per node on one leaf; each ring neighbour pair has its own NICs.
  add("dp-only 8", mlp, one_leaf_fat_tree(8, 1), grid(8, 1, 1, 16));
  // TP: one NVSwitch node; each GPU's NVLink carries one ring flow each way.
  add("tp-only 8", kTransformer, one_leaf_fat_tree(1, 8), grid(1, 8, 1, 4));
  // The same with direct collectives: each GPU's 7 flows share only its own NVLink links.
  ExecutionSpec direct = grid(1, 8, 1, 4);
  direct.tp_collective = "direct";
  add("tp-only 8 direct", kTransformer, one_leaf_fat_tree(1, 8), direct);
  // PP: a chain of 8 single-GPU nodes, 8 microbatches under 1F1B; every stage has one layer.
  add("pp-only 8", mlp, one_leaf_fat_tree(8, 1), grid(1, 1, 8, 8));
  // Mixed: TP inside a node; DP and PP groups use GPU k of each node, hence NIC k.
  add("mixed 64 (tp8 dp4 pp2)", kTransformer, one_leaf_fat_tree(8, 8), grid(4, 8, 2, 16));
  // EP: one GPU per node, so every all-to-all pair crosses nodes, each over its own NICs.
  ModelSpec experts = mlp_block(8, 4096);
  experts.experts = 8;
  add("ep-only 8", experts, one_leaf_fat_tree(8, 1), with_ep(grid(8, 1, 1, 16), 8));
  // 2-D TP: a TP block of tp 4 x tp_2d 2 on one NVSwitch node; each axis's rings have their
  // own NVLink links.
  ExecutionSpec two_d = grid(1, 4, 1, 4);
  two_d.tp_2d = 2;
  add("tp-2d 8 (tp4 x tp_2d 2)", mlp, one_leaf_fat_tree(1, 8), two_d);
  if (quick) return out;
  two_d = grid(4, 4, 2, 16);
  two_d.tp_2d = 2;
  add("mixed 64 (tp4 x tp_2d 2 dp4 pp2)", mlp, one_leaf_fat_tree(8, 8), two_d);
  add("dp-only 1024", mlp, one_leaf_fat_tree(1024, 1), grid(1024, 1, 1, 2048));
  add("pp-only 64", mlp_block(64), one_leaf_fat_tree(64, 1), grid(1, 1, 64, 64));
  add("mixed 1024 (tp8 dp32 pp4)", kTransformer, one_leaf_fat_tree(128, 8), grid(32, 8, 4, 256));
  add("mixed 16384 (tp8 dp256 pp8)", kTransformer, one_leaf_fat_tree(2048, 8),
      grid(256, 8, 8, 2048));
  add("dp-only 16384", mlp, one_leaf_fat_tree(16384, 1), grid(16384, 1, 1, 16384));
  return out;
}

BoundCheck check_bound(const LoadedScenario& loaded, std::string name) {
  logger("trainsim.validate")
      ->info("validate: {} ({} GPUs)", name, loaded.scenario.execution.gpus());
  validation::Measured m = validation::measure(loaded);
  BoundCheck c{std::move(name),
               validation::features(loaded.scenario),
               loaded.scenario.execution.gpus(),
               m.result.step_time.value(),
               m.bound.step_time.value(),
               ""};
  if (c.ratio() > 1.1) c.blame = validation::blame(m);
  return c;
}

} // namespace

std::vector<ExactCase> exact_cases(bool quick) {
  std::vector<ExactCase> out;
  for (Scenario& scenario : exact_specs(quick)) {
    std::string name = scenario.file;
    scenario.file = "exact: " + name;
    LoadedScenario loaded = build_scenario(std::move(scenario));
    validation::Measured m = validation::measure(loaded);
    ExactCase c{name,
                validation::parallelism(loaded.scenario.execution),
                loaded.scenario.execution.gpus(),
                m.result.step_time.value(),
                m.bound.step_time.value(),
                ""};
    if (std::abs(c.error()) > 0.02) c.note = validation::blame(m);
    out.push_back(c);
  }
  return out;
}

double validation::run_weight(const Scenario& s) {
  constexpr double kFixedOps = 5e4;
  return kFixedOps + estimate_run_cost(s, false, sim::rail_bundle(s), 1).actor_ops;
}

namespace {

// The same for a file: nothing for one the memory guard will refuse at once, or one whose
// values do not read (load says why).
double check_weight(const ScenarioTree& tree) {
  try {
    Scenario s = tree.read();
    if (auto size = topo::topology_size(s.system.topology))
      check_resources(s, *size, Footprint::simulation);
    return validation::run_weight(s);
  } catch (const Error& e) {
    if (e.exit_code() == ExitCode::internal) throw;
    return 0;
  }
}

} // namespace

std::vector<BoundCheck> bound_checks(const ValidateOptions& o, int& generated, int& rejected,
                                     std::vector<std::string>& not_run) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(o.scenarios_dir))
    // scenarios/validation/ holds the published runs, simulated once in their own section.
    if (entry.path().extension() == ".yaml" &&
        entry.path().parent_path().filename() != "validation")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  // Every scenario loaded first, then simulated side by side. The files range from 64 GPUs to
  // 1M, so the ETA weighs each by its estimated cost.
  std::vector<std::string> names;
  std::vector<LoadedScenario> loaded;
  std::vector<double> weights;
  for (const fs::path& f : files) {
    std::string name = fs::relative(f, o.scenarios_dir).string();
    ScenarioTree tree = ScenarioTree::parse(
        read_input_file(f.string(), "scenario file", kMaxScenarioBytes), f.string());
    int gpus = tree.read().execution.gpus();
    if (o.quick && gpus > 64) continue;
    if (!o.paper_scale && gpus > kPaperScaleGpus) {
      not_run.push_back(name + ": " + std::to_string(gpus) + " GPUs, left to --paper-scale");
      continue;
    }
    double weight = check_weight(tree);
    try {
      loaded.push_back(tree.load());
    } catch (const Error& e) {
      if (e.exit_code() != ExitCode::resources) throw;
      not_run.push_back(name + ": " + e.what());
      continue;
    }
    names.push_back(name), weights.push_back(weight);
  }
  for (RandomScenario& r :
       accepted_random_scenarios(o.seed, o.quick ? 20 : o.random_scenarios, generated, rejected)) {
    names.push_back("random " + std::to_string(r.index));
    weights.push_back(validation::run_weight(r.loaded.scenario));
    loaded.push_back(std::move(r.loaded));
  }
  std::vector<std::function<BoundCheck()>> tasks;
  for (size_t i = 0; i < loaded.size(); ++i)
    tasks.push_back([&, i] { return check_bound(loaded[i], names[i]); });
  sim::Progress progress("validate: the bound on every scenario",
                         std::accumulate(weights.begin(), weights.end(), 0.0),
                         "their estimated ops");
  return validation::side_by_side(tasks, progress, &weights);
}

} // namespace trainsim
