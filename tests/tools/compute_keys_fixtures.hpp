// The scenario the compute-key tests change one thing in (tests/tools/compute_keys_test.cpp,
// tests/tools/model_shape_keys_test.cpp).
#pragma once

#include <string>

#include "tests/tools/loader_fixtures.hpp"

namespace trainsim::testing {

// A valid 16-GPU transformer; each test changes one thing in it.
inline const std::string kValid = R"(model:
  kind: transformer
  layers: 4
  d_model: 1024
  d_ff: 4096
  heads: 16
  seq_len: 1024
system:
  gpu: {preset: a100-sxm-80gb}
  topology: {generator: fat-tree, nodes: 2, nic_bandwidth: 400Gbps}
execution:
  dp: 2
  tp: 8
  global_batch: 8
)";

inline std::string model_with(const std::string& lines) {
  return with(kValid, "  seq_len: 1024\n", "  seq_len: 1024\n" + lines);
}
inline std::string gpu_with(const std::string& keys) {
  return with(kValid, "{preset: a100-sxm-80gb}", "{preset: a100-sxm-80gb, " + keys + "}");
}
inline std::string execution_with(const std::string& lines) { return kValid + lines; }

// kValid on an H100 (whose preset has NCCL's NVLink curve) with a vocabulary and ZeRO-1 over
// dp 2: every feature of the per-operator profile has work to do.
inline std::string profiled() {
  std::string h100 = with(execution_with("  zero: 1\n"), "a100-sxm-80gb", "h100-sxm");
  return with(h100, "  seq_len: 1024\n", "  seq_len: 1024\n  vocab: 32000\n");
}

} // namespace trainsim::testing
