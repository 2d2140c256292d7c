// Scenario text and simulation helpers shared by the simulator's step tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "sim/simulation.hpp"
#include "tools/study/evaluate.hpp"
#include "tools/formats/report.hpp"
#include "tools/io/scenario_loader.hpp"

namespace trainsim::testing {

// H100-like links: NVLink 450 GB/s, PCIe 64 GB/s, NIC 400 Gb/s, 0.5 us per hop.
inline const std::string kFabric =
    "nvlink_bandwidth: 450GBps, nvlink_latency: 0.5us, pcie_bandwidth: 64GBps, "
    "pcie_latency: 0.5us, nic_bandwidth: 400Gbps, network_latency: 0.5us";
// Links so fast and close that transfers take no measurable time.
inline const std::string kIdealFabric =
    "nvlink_bandwidth: 1e9GBps, nvlink_latency: 0us, pcie_bandwidth: 1e9GBps, "
    "pcie_latency: 0us, nic_bandwidth: 1e9GBps, network_latency: 0us";

// An MLP block (two matmuls) of d_model 4096 and d_ff 16384 on sequences of 4096 tokens;
// no kernel launch latency, so kernel time is FLOP / sustained rate when compute binds.
inline std::string scenario(const std::string& topology, const std::string& execution,
                            int layers = 2, const std::string& fabric = kFabric) {
  return "model: {kind: mlp, layers: " + std::to_string(layers) +
         ", d_model: 4096, d_ff: 16384, seq_len: 4096}\n"
         "system:\n"
         "  gpu: {peak: 989TFLOPS, matmul_efficiency: 0.8, hbm_bandwidth: 3.35TBps, hbm_capacity: "
         "80GB, kernel_latency: 0us}\n"
         "  topology: {generator: fat-tree, " +
         fabric + ", " + topology + "}\nexecution: {" + execution + "}\n";
}

struct Outcome {
  sim::SimResult result;
  StepSummary summary;
};

/// The simulated step and its summary, with the closed-form bound attached as `trainsim run` does.
inline Outcome simulate(const std::string& text, sim::Fidelity fidelity = sim::Fidelity::fast) {
  Evaluation e = evaluate(parse_scenario(text, "test.yaml"), {.fidelity = fidelity});
  return {e.result, e.summary};
}

inline double category(const StepSummary& s, const std::string& name) {
  for (const auto& [c, t] : s.breakdown)
    if (sim::name(c) == name) return t.value();
  ADD_FAILURE() << "no category " << name;
  return 0;
}

} // namespace trainsim::testing
