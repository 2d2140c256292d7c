// Exact cases and the bound on every scenario: sections 1 and 2 of docs/validation.md.
#include "tools/study/validate_scenarios.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <random>
#include <sstream>

#include "sim/log.hpp"

#include "models/error.hpp"
#include "models/workload.hpp"
#include "tools/study/evaluate.hpp"
#include "tools/study/validation.hpp"

namespace trainsim::validation {

std::string ScenarioSpec::render() const {
  std::string gpu_lines;
  std::istringstream in(gpu);
  for (std::string line; std::getline(in, line);) gpu_lines += "    " + line + "\n";
  return "description: " + description + "\nmodel:\n  " + model + "system:\n" +
         (gpu_lines.empty() ? "" : "  gpu:\n" + gpu_lines) + "  topology:\n" + topology + "execution:\n" + execution;
}

std::string one_leaf_fat_tree(int nodes, int gpus_per_node) {
  return "    generator: fat-tree\n    nodes: " + std::to_string(nodes) + "\n    gpus_per_node: " +
         std::to_string(gpus_per_node) + "\n    leaf_down_ports: " + std::to_string(nodes * gpus_per_node) + "\n";
}

Measured measure(const LoadedScenario& loaded, sim::Fidelity fidelity, bool link_stats) {
  sim::SimOptions options;
  options.fidelity = fidelity;
  options.link_stats = link_stats; // the blame names the busiest link
  return evaluate(loaded, options, 1);
}

std::string blame(const Measured& m) { return trainsim::blame(m.summary); }

std::optional<LoadedScenario> accepted(const std::function<LoadedScenario()>& parse) {
  try {
    return parse();
  } catch (const InputError&) {
    return std::nullopt;
  }
}

} // namespace trainsim::validation

namespace trainsim {
namespace {

using validation::ScenarioSpec;

const char* kTransformer = "kind: transformer\n  layers: 8\n  d_model: 4096\n  d_ff: 16384\n  heads: 32\n"
                           "  seq_len: 2048\n";

std::string grid(int dp, int tp, int pp, long global_batch) {
  return "  dp: " + std::to_string(dp) + "\n  tp: " + std::to_string(tp) + "\n  pp: " + std::to_string(pp) +
         "\n  global_batch: " + std::to_string(global_batch) + "\n";
}

struct ExactSpec {
  std::string name;
  ScenarioSpec spec;
};

std::vector<ExactSpec> exact_specs(bool quick) {
  using validation::one_leaf_fat_tree;
  ScenarioSpec mlp;
  std::vector<ExactSpec> out;
  auto add = [&](std::string name, std::string model, std::string topology, std::string execution) {
    ScenarioSpec s{name, std::move(model), "", std::move(topology), std::move(execution)};
    out.push_back({std::move(name), std::move(s)});
  };
  // DP: one GPU per node on one leaf; each ring neighbour pair has its own NICs.
  add("dp-only 8", mlp.model, one_leaf_fat_tree(8, 1), grid(8, 1, 1, 16));
  // TP: one NVSwitch node; each GPU's NVLink carries one ring flow each way.
  add("tp-only 8", kTransformer, one_leaf_fat_tree(1, 8), grid(1, 8, 1, 4));
  // PP: a chain of 8 single-GPU nodes, 8 microbatches under 1F1B; every stage has one layer.
  add("pp-only 8", mlp.model, one_leaf_fat_tree(8, 1), grid(1, 1, 8, 8));
  // Mixed: TP inside a node; DP and PP groups use GPU k of each node, hence NIC k.
  add("mixed 64 (tp8 dp4 pp2)", kTransformer, one_leaf_fat_tree(8, 8), grid(4, 8, 2, 16));
  // EP: one GPU per node, so every all-to-all pair crosses nodes, each over its own NICs.
  add("ep-only 8", "kind: mlp\n  layers: 8\n  d_model: 4096\n  d_ff: 4096\n  experts: 8\n  seq_len: 2048\n",
      one_leaf_fat_tree(8, 1), grid(8, 1, 1, 16) + "  ep: 8\n");
  if (quick) return out;
  add("dp-only 1024", mlp.model, one_leaf_fat_tree(1024, 1), grid(1024, 1, 1, 2048));
  add("pp-only 64", "kind: mlp\n  layers: 64\n  d_model: 4096\n  d_ff: 16384\n  seq_len: 2048\n",
      one_leaf_fat_tree(64, 1), grid(1, 1, 64, 64));
  add("mixed 1024 (tp8 dp32 pp4)", kTransformer, one_leaf_fat_tree(128, 8), grid(32, 8, 4, 256));
  add("mixed 16384 (tp8 dp256 pp8)", kTransformer, one_leaf_fat_tree(2048, 8), grid(256, 8, 8, 2048));
  add("dp-only 16384", mlp.model, one_leaf_fat_tree(16384, 1), grid(16384, 1, 1, 16384));
  return out;
}

std::string parallelism(const ExecutionSpec& e) {
  std::string out = "dp" + std::to_string(e.dp) + " tp" + std::to_string(e.tp) + " pp" + std::to_string(e.pp);
  if (e.ep > 1) out += " ep" + std::to_string(e.ep);
  return out + " m" + std::to_string(e.microbatches());
}

std::string features(const Scenario& sc) {
  const ExecutionSpec& e = sc.execution;
  std::string out = parallelism(e) + " " + to_string(e.schedule);
  if (e.schedule == PipelineSchedule::interleaved) out += "x" + std::to_string(e.interleave);
  if (e.recompute) out += " recompute";
  if (e.sequence_parallel) out += " sp";
  if (e.zero > 0) out += " zero" + std::to_string(e.zero);
  return out + ", " + sc.system.topology.generator;
}

BoundCheck check_bound(const LoadedScenario& loaded, std::string name) {
  logger("trainsim.validate")->info("validate: {} ({} GPUs)", name, loaded.scenario.execution.gpus());
  validation::Measured m = validation::measure(loaded);
  BoundCheck c{std::move(name), features(loaded.scenario), loaded.scenario.execution.gpus(),
               m.result.step_time.value(), m.bound.step_time.value(), ""};
  if (c.ratio() > 1.1) c.blame = validation::blame(m);
  return c;
}


// ---- the random scenarios ----

// Our own mapping of the generator's 64-bit words to ranges, so the stream of scenarios does
// not depend on a standard library's distributions.
class Draw {
public:
  explicit Draw(unsigned long long seed) : rng_(seed) {}
  int below(int n) { return static_cast<int>(rng_() % static_cast<unsigned long long>(n)); }
  template <typename T> T one_of(std::initializer_list<T> xs) { return *(xs.begin() + below(static_cast<int>(xs.size()))); }
  bool chance(int one_in) { return below(one_in) == 0; }

private:
  std::mt19937_64 rng_;
};

std::string random_topology(Draw& d, int gpus) {
  int kind = d.below(4);
  if (kind == 2) { // torus: one GPU per chip, 2 or 3 power-of-two rings
    int k = 0;
    while ((1 << k) < gpus) ++k;
    int a = 1 + d.below(k - 2), b = 1 + d.below(k - a - 1), c = k - a - b; // a, b >= 1; c >= 0
    std::string dims = std::to_string(1 << a) + "x" + std::to_string(1 << b) + (c > 0 ? "x" + std::to_string(1 << c) : "");
    return "    generator: torus\n    dims: " + dims + "\n";
  }
  int gpn = std::min(gpus, d.one_of({1, 2, 4, 8}));
  std::string common = "    nodes: " + std::to_string(gpus / gpn) + "\n    gpus_per_node: " + std::to_string(gpn) + "\n";
  if (kind == 3) { // dragonfly: (groups - 1) must divide routers x global links = 8
    int groups = d.one_of({2, 3, 5, 9}), routers = 4;
    int per_router = std::max(1, (gpus / gpn + groups * routers - 1) / (groups * routers));
    return "    generator: dragonfly\n" + common + "    groups: " + std::to_string(groups) +
           "\n    routers_per_group: 4\n    global_links: 2\n    nodes_per_router: " + std::to_string(per_router) + "\n";
  }
  int ports = d.one_of({4, 8, 16, 32});
  return std::string("    generator: ") + (kind == 0 ? "fat-tree" : "rail-optimized") + "\n" + common +
         "    leaf_down_ports: " + std::to_string(ports) + "\n    oversubscription: " +
         std::to_string(d.one_of({1, 2, 4})) + "\n";
}

std::string random_model(Draw& d, bool moe) {
  long dm = d.one_of({1024L, 2048L, 4096L});
  bool transformer = d.chance(2);
  std::string out = std::string("kind: ") + (transformer ? "transformer" : "mlp") + "\n  layers: " +
                    std::to_string(d.one_of({8, 16, 32})) + "\n  d_model: " + std::to_string(dm) + "\n  d_ff: " +
                    std::to_string(4 * dm) + "\n  seq_len: " + std::to_string(d.one_of({512, 1024, 2048})) + "\n";
  if (transformer) out += "  heads: " + std::to_string(dm / 128) + "\n";
  if (moe) out += "  experts: 8\n  top_k: " + std::to_string(d.one_of({1, 2})) + "\n";
  return out;
}

std::string random_execution(Draw& d, int gpus, bool moe) {
  int tp = std::min(gpus, d.one_of({1, 2, 4, 8}));
  int pp = std::min(gpus / tp, d.one_of({1, 2, 4, 8}));
  int dp = gpus / (tp * pp);
  int schedule = pp > 1 ? d.below(3) : 0;
  long m = schedule == 2 ? pp * d.one_of({1L, 2L}) : d.one_of({1L, 2L, 4L, 8L});
  long micro = d.one_of({1L, 2L});
  std::string out = grid(dp, tp, pp, dp * micro * m) + "  micro_batch: " + std::to_string(micro) + "\n";
  out += std::string("  schedule: ") + (schedule == 0 ? "1f1b" : schedule == 1 ? "gpipe" : "interleaved") + "\n";
  if (schedule == 2) out += "  interleave: 2\n";
  if (d.chance(4)) out += "  recompute: true\n";
  if (tp > 1 && d.chance(4)) out += "  sequence_parallel: true\n";
  if (d.chance(3)) out += "  zero: " + std::to_string(1 + d.below(3)) + "\n";
  if (moe) out += "  ep: " + std::to_string(std::min(dp, d.one_of({2, 4, 8}))) + "\n";
  return out;
}

} // namespace

std::string random_scenario_text(unsigned long long seed, int index) {
  // One generator per scenario, seeded from (seed, index): scenario i does not depend on how
  // many words the ones before it drew.
  Draw d(seed * 0x9E3779B97F4A7C15ULL + static_cast<unsigned long long>(index));
  int gpus = 1 << (3 + d.below(7)); // 8 .. 512
  bool moe = d.chance(5);
  ScenarioSpec s;
  s.description = "random scenario " + std::to_string(index);
  s.model = random_model(d, moe);
  s.topology = random_topology(d, gpus);
  s.execution = random_execution(d, gpus, moe);
  return s.render();
}

std::vector<ExactCase> exact_cases(bool quick) {
  std::vector<ExactCase> out;
  for (const ExactSpec& spec : exact_specs(quick)) {
    LoadedScenario loaded = parse_scenario(spec.spec.render(), "exact: " + spec.name);
    validation::Measured m = validation::measure(loaded);
    ExactCase c{spec.name, parallelism(loaded.scenario.execution), loaded.scenario.execution.gpus(),
                m.result.step_time.value(), m.bound.step_time.value(), ""};
    if (std::abs(c.error()) > 0.02) c.note = validation::blame(m);
    out.push_back(c);
  }
  return out;
}

std::vector<BoundCheck> bound_checks(const ValidateOptions& o, int& generated, int& rejected) {
  std::vector<BoundCheck> out;
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(o.scenarios_dir))
    // scenarios/validation/ holds the published runs, simulated once in their own section.
    if (entry.path().extension() == ".yaml" && entry.path().parent_path().filename() != "validation")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    LoadedScenario loaded = load_scenario(f.string());
    if (o.quick && loaded.scenario.execution.gpus() > 64) continue;
    out.push_back(check_bound(loaded, fs::relative(f, o.scenarios_dir).string()));
  }
  int wanted = o.quick ? 20 : o.random_scenarios;
  generated = rejected = 0;
  for (int i = 0, accepted = 0; accepted < wanted && i < 20 * wanted; ++i) {
    ++generated;
    std::optional<LoadedScenario> loaded = validation::accepted(
        [&] { return parse_scenario(random_scenario_text(o.seed, i), "random/" + std::to_string(i)); });
    if (!loaded) {
      ++rejected;
      continue;
    }
    out.push_back(check_bound(*loaded, "random " + std::to_string(i)));
    ++accepted;
  }
  return out;
}

} // namespace trainsim
