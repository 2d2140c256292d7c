// Section 4's layer check: one layer of Korthikanti et al.'s 22B GPT on 8 A100s, simulated
// under each of the paper's Table 4 settings, against the forward + backward time it reports.
// The scenario is the published runs' (scenarios/validation/korthikanti2022-22b-*.yaml) with
// one layer and no vocabulary, so the layer is all that runs besides the optimizer step.
#include "models/hardware_presets.hpp"
#include "models/step_compute.hpp"
#include "tools/study/validate_scenarios.hpp"
#include "tools/study/validation.hpp"

namespace trainsim {
namespace {

Scenario layer_of_22b(bool sequence_parallel, Recompute recompute) {
  ModelSpec m;
  m.name = "gpt-22b layer";
  m.layers = 1;
  m.d_model = 6144;
  m.d_ff = 4L * 6144;
  m.heads = 64;
  m.seq_len = 2048;
  m.precision = "fp16";
  m.attention = AttentionKernel::unfused;        // Megatron-LM of 2022, before flash attention
  topo::FatTreeParams node;                      // one DGX A100
  node.nvlink_bandwidth = BytesPerSecond(230e9); // NCCL's effective NVLink 3 rate, as the runs'
  node.pcie_bandwidth = BytesPerSecond(32e9);
  node.nic_bandwidth = BytesPerSecond(25e9);
  ExecutionSpec e;
  e.tp = 8;
  e.global_batch = e.micro_batch = 4; // Table 3: batch 4, micro-batch 4
  e.sequence_parallel = sequence_parallel;
  e.recompute = recompute;
  Scenario s = validation::make_scenario("layer check: 22B, " + to_string(recompute), m, node, e);
  s.system.gpu = find_gpu_preset("a100-sxm-80gb")->gpu;
  return s;
}

struct Row {
  const char* variant;
  bool sequence_parallel;
  Recompute recompute;
  double combined_ms; ///< Table 4's "Combined (ms)"
};

} // namespace

std::vector<LayerCheck> layer_checks() {
  // Korthikanti et al. 2022, Table 4: "Time to complete the forward and backward pass of a
  // single transformer layer of the 22B model".
  const Row rows[] = {{"baseline, no recomputation", false, Recompute::none, 19.6},
                      {"sequence parallelism", true, Recompute::none, 19.0},
                      {"full recomputation", false, Recompute::full, 27.2},
                      {"selective recomputation", false, Recompute::selective, 20.9},
                      {"selective + sequence parallelism", true, Recompute::selective, 20.3}};
  std::vector<LayerCheck> out;
  for (const Row& row : rows) {
    Scenario s = layer_of_22b(row.sequence_parallel, row.recompute);
    Seconds optimizer = optimizer_time(s, 0).total(); // the step's only work outside the layer
    validation::Measured m = validation::measure(build_scenario(s), sim::Fidelity::fast, false);
    out.push_back({row.variant, row.combined_ms, (m.result.step_time - optimizer).value() * 1e3});
  }
  return out;
}

} // namespace trainsim
