// Scenarios of the simulator's step tests, made in code, and the simulation helpers they share.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "models/error.hpp"
#include "models/hardware_presets.hpp"
#include "models/scenario_rules.hpp"
#include "models/scenario.hpp"
#include "models/topology_spec.hpp"
#include "sim/simulation.hpp"
#include "tools/study/evaluate.hpp"

namespace trainsim::testing {

/// One fat-tree node of 8 GPUs; tests set the node count and shape. H100-like links: NVLink
/// 450 GB/s, PCIe 64 GB/s, NIC 400 Gb/s, 0.5 us per hop. They are the FatTreeParams defaults
/// today, written out because the tests' arithmetic depends on them.
inline topo::FatTreeParams fabric() {
  topo::FatTreeParams p;
  p.nvlink_bandwidth = BytesPerSecond(450e9);
  p.nvlink_latency = Seconds(0.5e-6);
  p.pcie_bandwidth = BytesPerSecond(64e9);
  p.pcie_latency = Seconds(0.5e-6);
  p.nic_bandwidth = BytesPerSecond(400e9 / 8);
  p.network_latency = Seconds(0.5e-6);
  return p;
}

/// Links so fast and close that transfers take no measurable time (1e9 GB/s, no latency).
inline topo::FatTreeParams ideal_fabric() {
  topo::FatTreeParams p;
  p.nvlink_bandwidth = p.pcie_bandwidth = p.nic_bandwidth = BytesPerSecond(1e18);
  p.nvlink_latency = p.pcie_latency = p.network_latency = Seconds(0);
  return p;
}

/// `links` with `nodes` nodes of `gpus_per_node` GPUs.
inline topo::FatTreeParams fat_tree(int nodes, int gpus_per_node = 8,
                                    topo::FatTreeParams links = fabric()) {
  links.nodes = nodes;
  links.gpus_per_node = gpus_per_node;
  return links;
}

/// Four single-GPU nodes on one leaf: ring and pipeline flows use distinct link directions.
inline topo::FatTreeParams four_nodes(topo::FatTreeParams links = fabric()) {
  return fat_tree(4, 1, std::move(links));
}

/// An MLP block (two matmuls) of d_model 4096 and d_ff 16384 on sequences of 4096 tokens.
inline ModelSpec mlp(int layers = 2) {
  ModelSpec m;
  m.kind = ModelKind::mlp;
  m.layers = layers;
  m.d_model = 4096;
  m.d_ff = 16384;
  m.seq_len = 4096;
  return m;
}

/// The H100 SXM's figures given one by one, with no kernel launch latency, so kernel time is
/// FLOP / sustained rate when compute binds. Named as the loader names a GPU without a preset.
inline GpuSpec gpu() {
  GpuSpec g;
  g.name = g.preset = "custom";
  g.peak = FlopPerSecond(989e12);
  g.matmul_efficiency = 0.8;
  g.hbm_bandwidth = BytesPerSecond(3.35e12);
  g.hbm_capacity = Bytes(80e9);
  g.kernel_latency = Seconds(0);
  return g;
}

/// The H100 SXM preset, as a scenario without a `system.gpu` section runs on, with every GPU
/// the median one (`speed_spread` 0): the tests that use it compare fidelities, bundling and
/// the bound, which one slow GPU would part (tests/sim/gpu_speed_test.cpp tests the spread).
inline GpuSpec h100() {
  GpuSpec g = find_gpu_preset("h100-sxm")->gpu;
  g.speed_spread = 0;
  return g;
}

/// The H100 SXM preset as it is, GPUs of unequal speed included.
inline GpuSpec h100_preset() { return find_gpu_preset("h100-sxm")->gpu; }

/// `model` on `topology`, split by `execution`, every GPU a `chip`.
inline Scenario scenario(topo::TopologySpec topology, ExecutionSpec execution,
                         ModelSpec model = mlp(), GpuSpec chip = gpu()) {
  Scenario s;
  s.file = "test.yaml"; // the label the tests' error messages have always named
  s.model = std::move(model);
  s.system.gpu = std::move(chip);
  s.system.topology = std::move(topology);
  s.execution = std::move(execution);
  return s;
}

/// 16 experts on 16 GPUs of 2 nodes of 8 (ep 16 inside dp 16), 2 layers of d_model 1024 and
/// d_ff 4096, one sequence of 1024 tokens per GPU, on the H100 preset: every exchange crosses
/// the nodes. `extra`'s other keys are kept.
inline Scenario sixteen_way_experts(int top_k, ExecutionSpec extra = {},
                                    topo::FatTreeParams links = fabric()) {
  ModelSpec model{.layers = 2,
                  .d_model = 1024,
                  .d_ff = 4096,
                  .heads = 16,
                  .seq_len = 1024,
                  .experts = 16,
                  .top_k = top_k};
  extra.dp = 16, extra.ep = 16, extra.global_batch = 16;
  return scenario(fat_tree(2, 8, std::move(links)), extra, model, h100());
}

struct Outcome {
  sim::SimResult result;
  StepSummary summary;
};

/// The simulated step and its summary, with the closed-form bound attached as `trainsim run`
/// does; build_unguarded() checks the scenario's rules as the loader does a file's.
inline Outcome simulate(const Scenario& s, sim::Fidelity fidelity = sim::Fidelity::fast) {
  Evaluation e = evaluate(build_unguarded(s), {.fidelity = fidelity});
  return {e.result, e.summary};
}

/// Rail bundling's promise (sim/rail_bundle.hpp): the bundled run gives the same step, every
/// rank's breakdown and every link's bytes as every GPU's own flows.
/// How far one rank's time in a category may differ between two runs that settle the same
/// flows in another order (rail bundling against every GPU's flows): each event's end is
/// rounded by SimGrid's solver, and a rank's category sums many events. A few ns on a step of
/// ms; a real difference (one flow more or less) is microseconds.
inline double event_rounding(const sim::SimResult& run) { return 1e-6 * run.step_time.value(); }

/// The same step and every rank's breakdown, to the solver's rounding: the step's end is one
/// event, rounded a few ps either way (62 ps of 21.9 ms on RailBundle's direct TP step); a
/// real difference is microseconds.
inline void expect_same_ranks(const sim::SimResult& a, const sim::SimResult& b) {
  EXPECT_NEAR(a.step_time.value(), b.step_time.value(), 1e-8 * b.step_time.value());
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (size_t r = 0; r < b.ranks.size(); ++r)
    for (size_t c = 0; c < sim::kCategories.size(); ++c)
      ASSERT_NEAR(a.ranks[r].time[c].value(), b.ranks[r].time[c].value(), event_rounding(b)) << r;
}

/// expect_same_ranks(), and every link's bytes.
inline void expect_same_step(const sim::SimResult& bundled, const sim::SimResult& flows) {
  expect_same_ranks(bundled, flows);
  ASSERT_EQ(bundled.channel_bytes.size(), flows.channel_bytes.size());
  for (size_t c = 0; c < flows.channel_bytes.size(); ++c)
    ASSERT_NEAR(bundled.channel_bytes[c], flows.channel_bytes[c], 1e-6 * flows.channel_bytes[c]);
}

/// The one line the scenario rules refuse `s` with, or "accepted".
inline std::string refusal(const Scenario& s) {
  try {
    check_scenario(s, std::nullopt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

inline double category(const StepSummary& s, const std::string& name) {
  for (const auto& [c, t] : s.breakdown)
    if (sim::name(c) == name) return t.value();
  ADD_FAILURE() << "no category " << name;
  return 0;
}

} // namespace trainsim::testing
