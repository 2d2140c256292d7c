// A scenario is three independent parts, as in Calculon: what is trained (ModelSpec), on what
// (SystemSpec) and how it is split (ExecutionSpec). Loading and validation live in
// tools/scenario_loader; these are plain values with documented defaults.
#pragma once

#include <string>

#include "models/topology_spec.hpp"
#include "models/units.hpp"

namespace trainsim {

enum class ModelKind {
  transformer, ///< attention + MLP per layer, Megatron-style FLOP accounting
  mlp,         ///< the paper's stacked (sparse) MLP blocks, no attention
};

struct ModelSpec {
  std::string name = "model";
  ModelKind kind = ModelKind::transformer;
  int layers = 1;
  long d_model = 1;
  long d_ff = 4;          ///< per expert
  int heads = 1;          ///< attention heads (transformer only)
  long seq_len = 1;       ///< tokens per sequence
  int experts = 1;        ///< E; the model is sparse (MoE) when E > 1
  int top_k = 1;          ///< experts each token is routed to
  bool gated_mlp = false; ///< SwiGLU-style: three d_model x d_ff matrices per expert instead of two
  Bytes bytes_per_word{2.0};      ///< weights and activations (BF16)
  std::string precision = "bf16"; ///< the number format bytes_per_word comes from
};

struct GpuSpec {
  std::string name = "h100";
  FlopPerSecond peak{989e12};     ///< dense BF16
  double matmul_efficiency = 0.8; ///< sustained fraction of peak for matmuls
  BytesPerSecond hbm_bandwidth{3.35e12};
  Bytes hbm_capacity{80e9};
  Seconds kernel_latency{4e-6}; ///< launch + sync per compute kernel
  /// The preset the figures start from (models/hardware_presets.hpp), before any override;
  /// "custom" when a scenario gives every figure itself, "" when built in code.
  std::string preset;
};

struct SystemSpec {
  GpuSpec gpu;
  /// The fabric: a registered generator and its parameters, parsed once from the scenario's
  /// `system.topology` (topologies/spec.hpp) or made in code from a struct.
  topo::TopologySpec topology;
};

enum class PipelineSchedule {
  gpipe,       ///< all forwards, then all backwards
  one_f_one_b, ///< PipeDream-Flush: warm-up forwards, then one forward one backward
  interleaved, ///< Megatron's interleaved 1F1B over `interleave` virtual stages per GPU
};

struct ExecutionSpec {
  int dp = 1;
  int tp = 1;
  int pp = 1;
  int ep = 1;            ///< expert parallelism inside the DP group; 1 = experts replicated
  long global_batch = 1; ///< sequences per step
  long micro_batch = 1;  ///< sequences per microbatch
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int interleave = 1;             ///< virtual pipeline stages per GPU (schedule interleaved)
  bool sequence_parallel = false; ///< TP all-reduces split into reduce-scatter + all-gather
  int zero = 0; ///< sharded over DP: 1 optimizer state, 2 + gradients, 3 + parameters
  bool recompute =
      false; ///< full activation recomputation: keep layer inputs only, redo forward in backward
  bool dp_overlap = false; ///< gradient collectives start during the last backward pass
  Bytes dp_bucket{1e9};    ///< gradient bytes per DP collective when overlapping
  std::string tp_collective = "ring";
  std::string dp_collective = "ring";
  std::string ep_collective = "pairwise";
  Bytes optimizer_bytes_per_param{12.0}; ///< FP32 master weights + Adam moments

  [[nodiscard]] int gpus() const { return dp * tp * pp; }
  [[nodiscard]] long microbatches() const {
    return global_batch / (static_cast<long>(dp) * micro_batch);
  }
  [[nodiscard]] bool shard_optimizer() const { return zero >= 1; }
  /// Model chunks (virtual pipeline stages) per GPU: `interleave` under the interleaved
  /// schedule, otherwise one.
  [[nodiscard]] int chunks() const {
    return schedule == PipelineSchedule::interleaved ? interleave : 1;
  }
};

struct Scenario {
  std::string file; ///< where it was loaded from, for messages
  std::string
      input_hash; ///< of the text it was parsed from (tools/provenance); "" when built in code
  ModelSpec model;
  SystemSpec system;
  ExecutionSpec execution;
};

std::string to_string(PipelineSchedule s);
std::string to_string(ModelKind k);

} // namespace trainsim
