// The random scenarios of `trainsim validate`: a deterministic stream of small scenarios
// (8 to 512 GPUs) over every fabric generator, their layouts drawn here and their options as
// the key table declares (RandomDraw), proposed to the loader, which accepts or refuses each. The
// bound section checks them against the closed form; the fidelity section runs them in both modes.
#include <optional>
#include <random>
#include <utility>

#include "models/layout.hpp"
#include "models/section_keys.hpp"
#include "tools/study/validate_scenarios.hpp"
#include "tools/study/validation.hpp"

namespace trainsim {
namespace {

using validation::grid;
using validation::make_scenario;


// Our own mapping of the generator's 64-bit words to ranges, so the stream of scenarios does
// not depend on a standard library's distributions.
class Draw {
public:
  explicit Draw(unsigned long long seed) : rng_(seed) {}
  int below(int n) { return static_cast<int>(rng_() % static_cast<unsigned long long>(n)); }
  template <typename T>
  T one_of(std::initializer_list<T> xs) {
    return *(xs.begin() + below(static_cast<int>(xs.size())));
  }
  bool chance(int one_in) { return below(one_in) == 0; }

private:
  std::mt19937_64 rng_;
};

topo::TopologySpec random_topology(Draw& d, int gpus) {
  int kind = d.below(4);
  if (kind == 2) { // torus: one GPU per chip, 2 or 3 power-of-two rings
    int k = 0;
    while ((1 << k) < gpus) ++k;
    int a = 1 + d.below(k - 2), b = 1 + d.below(k - a - 1), c = k - a - b; // a, b >= 1; c >= 0
    topo::TorusParams t;
    t.dims = {1 << a, 1 << b};
    if (c > 0) t.dims.push_back(1 << c);
    return t;
  }
  int gpn = std::min(gpus, d.one_of({1, 2, 4, 8}));
  if (kind == 3) { // dragonfly: (groups - 1) must divide routers x global links = 8
    topo::DragonflyParams f;
    f.node.gpus_per_node = gpn;
    f.groups = d.one_of({2, 3, 5, 9});
    f.routers_per_group = 4;
    f.global_links = 2;
    f.nodes_per_router = std::max(1, (gpus / gpn + f.groups * 4 - 1) / (f.groups * 4));
    return f;
  }
  topo::FatTreeParams f;
  f.nodes = gpus / gpn;
  f.gpus_per_node = gpn;
  f.leaf_down_ports = d.one_of({4, 8, 16, 32});
  f.oversubscription = d.one_of({1, 2, 4});
  f.rail_optimized = kind == 1;
  return f;
}

ModelSpec random_model(Draw& d, bool moe) {
  ModelSpec m;
  m.d_model = d.one_of({1024L, 2048L, 4096L});
  m.kind = d.chance(2) ? ModelKind::transformer : ModelKind::mlp;
  m.seq_len = d.one_of({512, 1024, 2048}); // drawn before the layers, as the YAML text did
  m.layers = d.one_of({8, 16, 32});
  m.d_ff = 4 * m.d_model;
  if (m.kind == ModelKind::transformer) m.heads = static_cast<int>(m.d_model / 128);
  if (moe) m.experts = 8, m.top_k = d.one_of({1, 2});
  return m;
}

ExecutionSpec random_execution(Draw& d, int gpus, bool moe) {
  int tp = std::min(gpus, d.one_of({1, 2, 4, 8}));
  int pp = std::min(gpus / tp, d.one_of({1, 2, 4, 8}));
  int dp = gpus / (tp * pp);
  int schedule = pp > 1 ? d.below(3) : 0;
  long m = schedule == 2 ? pp * d.one_of({1L, 2L}) : d.one_of({1L, 2L, 4L, 8L});
  long micro = d.one_of({1L, 2L});
  ExecutionSpec e = grid(dp, tp, pp, dp * micro * m);
  e.micro_batch = micro;
  e.schedule = schedule == 0   ? PipelineSchedule::one_f_one_b
               : schedule == 1 ? PipelineSchedule::gpipe
                               : PipelineSchedule::interleaved;
  if (schedule == 2) e.interleave = 2;
  if (moe) e.ep = std::min(dp, d.one_of({2, 4, 8}));
  return e;
}

// The options, from the key table: each key that declares a draw (models/execution_keys.cpp,
// RandomDraw), in table order, read from its drawn text as a file's value is.
void draw_options(Draw& d, ExecutionSpec& e) {
  for (const ExecutionKey& key : execution_keys()) {
    if (!key.draw || !key.draw->applies(e) || !d.chance(key.draw->one_in)) continue;
    const std::vector<std::string>& values = key.draw->values;
    std::string text = values[static_cast<size_t>(d.below(static_cast<int>(values.size())))];
    key.read(Params("random", "execution", {{key.key, text}}), e);
  }
}

} // namespace

Scenario random_scenario(unsigned long long seed, int index) {
  // One generator per scenario, seeded from (seed, index): scenario i does not depend on how
  // many words the ones before it drew.
  Draw d(seed * 0x9E3779B97F4A7C15ULL + static_cast<unsigned long long>(index));
  int gpus = 1 << (3 + d.below(7)); // 8 .. 512
  bool moe = d.chance(5);
  ModelSpec model = random_model(d, moe);
  topo::TopologySpec topology = random_topology(d, gpus);
  ExecutionSpec execution = random_execution(d, gpus, moe);
  // 2-D TP on the MLP block (its second axis is part of the layout).
  if (model.kind == ModelKind::mlp && !moe && execution.tp >= 4 && d.chance(3))
    execution.tp /= 2, execution.tp_2d = 2;
  draw_options(d, execution);
  return make_scenario("random/" + std::to_string(index), model, std::move(topology), execution);
}

std::vector<RandomScenario> accepted_random_scenarios(unsigned long long seed, int wanted,
                                                      int& generated, int& rejected) {
  std::vector<RandomScenario> out;
  generated = rejected = 0;
  for (int i = 0; static_cast<int>(out.size()) < wanted && i < 20 * wanted; ++i, ++generated) {
    std::optional<LoadedScenario> loaded =
        validation::accepted([&] { return build_scenario(random_scenario(seed, i)); });
    if (loaded)
      out.push_back({i, std::move(*loaded)});
    else
      ++rejected;
  }
  return out;
}

} // namespace trainsim
