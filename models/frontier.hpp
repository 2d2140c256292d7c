// The paper's training-compute frontier (docs/paper-model.md, docs/closed-form.md): for each
// training compute C, derive the model shape and batch from the baseline laws, search the
// parallel plan and cluster size that finish within the duration at the best utilization,
// and find where utilization drops (the knee) and where no plan finishes (the latency wall).
// Analytic and deterministic; no simulation. A plan is priced from the same basis as the
// simulator and the closed form (models/workload.hpp, layout.hpp, fabric.hpp,
// collective_cost.hpp, pipeline_path.hpp), combined as the paper does: every term overlaps.
// Split into frontier_inputs.cpp (knobs, hardware, shape laws), frontier_plan.cpp (one plan),
// frontier_search.cpp (the best plan of a level), frontier_curve.cpp (knee and wall) and
// frontier_scenario.cpp (a point as a scenario to replay).
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/fabric.hpp"
#include "models/hardware_presets.hpp"
#include "models/topology_spec.hpp"
#include "models/workload.hpp"

namespace trainsim {

/// How a collective's latency grows with the group size p (its bandwidth term is always the
/// paper's 2(p-1)/p n per all-reduce, which a ring and a double binary tree both reach).
enum class CollectiveLatency {
  tree, ///< log2(p) alpha per phase: the best known latency, the baseline
  ring, ///< (p-1) alpha per phase
};

/// Every assumption of the frontier, with the documented baseline as default.
struct FrontierOptions {
  std::string gpu = "h100";  ///< hardware preset (hardware_presets.hpp)
  Seconds duration{7.776e6}; ///< wall-clock budget of the run: 3 months of 30 days
  // Shape laws (paper-model.md "Model shape baseline").
  double tokens_per_param = 20.0;       ///< D = 20 N (Chinchilla); C = 6 N D
  double aspect_ratio = 129.25;         ///< d_model / L; 129.25 reproduces L = 120 at 1e25 FLOP
  double ff_ratio = 5.0;                ///< d_ff / d_model; 5 folds attention into the MLP block
  double batch_tokens_at_1e25 = 4.19e6; ///< critical batch law B = coeff (C / 1e25)^exponent
  double batch_exponent = 1.0 / 6.0;    ///< larger = more aggressive batch scaling; in [0, 1)
  // The MoE curve: E experts per layer, each token routed to top_k of them; N counts the
  // active parameters (C = 6 N_active D), so the total is E / top_k times larger.
  int experts = 8;
  int top_k = 1;
  // Hardware, on top of the preset.
  std::optional<double> matmul_efficiency; ///< sustained fraction of peak; preset's (0.8) if unset
  std::optional<Seconds> kernel_latency;   ///< launch + sync per kernel; preset's (4 us) if unset
  Seconds nvlink_latency{1e-6};            ///< per collective step inside a node: 2 hops x 0.5 us
  Seconds network_latency{3e-6};           ///< per collective step across nodes: 6 hops x 0.5 us
  double bandwidth_scale = 1.0;            ///< multiplies NVLink and network bandwidth
  double latency_scale = 1.0;              ///< multiplies kernel, NVLink and network latencies
  CollectiveLatency collective = CollectiveLatency::tree;
  double bytes_per_word = 2.0;             ///< BF16 weights, activations and gradients
  double optimizer_bytes_per_param = 12.0; ///< FP32 master + Adam moments, sharded over DP (ZeRO-1)
  // The sweep.
  Flop min_flop{1e24};
  Flop max_flop{1e32};
  int points_per_decade = 4;  ///< quarter-decade steps
  double knee_fraction = 0.8; ///< the knee: utilization still >= this x sustained maximum
  int max_interleave = 1;  ///< largest interleaved-pipeline chunk count searched; 1 = plain 1F1B,
                           ///< as in the issue's search space and the simulator's schedules
  int max_tp_2d = 1 << 16; ///< largest second TP axis searched; 1 = 1-D TP only, the plans
                           ///< the simulator can replay (trainsim validate uses it)
  double max_gpus = 1e18;  ///< cluster size cap; effectively none (the wall is "any size")
};

/// Throws InputError ("trainsim frontier: KEY = 'VALUE': PROBLEM") for the first bad knob.
void validate(const FrontierOptions& options);

/// A run duration: "3months" (30-day months: 7.776e6 s), "90days", "2160h", "30min",
/// "1year" (365 days), or anything parse_seconds() takes ("7.776e6s"). Throws
/// std::invalid_argument naming the text and the accepted units, like the parse_* of units.hpp.
Seconds parse_duration(std::string_view text);

/// The hardware after applying the knobs to the preset: the GPU (its figures as a scenario
/// gives them), the two tiers between GPUs, and how a collective's latency grows.
struct FrontierHardware {
  GpuSpec gpu;          ///< the preset's, with efficiency and kernel latency knobs applied
  TwoTierFabric fabric; ///< NVLink domain and network: bandwidth per direction, alpha per step
  CollectiveLatency collective = CollectiveLatency::tree;
};
FrontierHardware resolve_hardware(const FrontierOptions& options);

/// Model and batch derived from the compute by the baseline laws.
struct ModelShape {
  Flop compute;
  double active_params = 0; ///< N = sqrt(C / (6 x tokens_per_param))
  double total_params = 0;  ///< N x experts / top_k
  int layers = 0;           ///< L = cbrt(N / (2 ff_ratio aspect^2)), rounded
  /// An MLP block: d_model = sqrt(N / (2 ff_ratio L)) (not rounded, so that N stays exact),
  /// d_ff = ff_ratio x d_model, the experts and top_k of the curve, bytes_per_word.
  LayerShape layer;
  double tokens = 0;       ///< D = tokens_per_param x N
  double batch_tokens = 0; ///< B, capped at D
  double steps = 0;        ///< D / B
  Bytes optimizer_bytes_per_param{12.0};
};
ModelShape shape_for(Flop compute, const FrontierOptions& options, bool moe);

/// One parallel plan: GPUs = dp x tp_1d x tp_2d x pp; ep divides dp. The search's relaxation
/// of an ExecutionSpec: dp is a real number while it bisects (whole once chosen), and tp_2d is
/// the paper's second TP axis N_J (a scenario's execution.tp_2d).
struct ParallelPlan {
  double dp = 1; ///< data-parallel replicas; the search returns a whole multiple of ep
  int tp_1d = 1; ///< N_K: Megatron axis, carries d_model-sized activations
  int tp_2d = 1; ///< N_J: second axis, carries d_ff-sized activations
  int pp = 1;
  int ep = 1;
  int microbatches = 1;
  int interleave =
      1; ///< virtual pipeline chunks per GPU (Megatron interleaving); divides the bubble
  [[nodiscard]] double gpus() const { return dp * tp_1d * tp_2d * pp; }
};

/// The times of one plan, per GPU per step, on the most loaded pipeline stage.
struct PlanTimes {
  Seconds compute, hbm, nvlink, network, latency; ///< per microbatch on one stage
  Seconds stage;                    ///< max of the five above (the paper's overlap assumption)
  Seconds pipeline;                 ///< max(microbatches + (pp - 1) / interleave, pp) x stage
  Seconds dp;                       ///< gradient all-reduce, overlapped with the pipeline
  /// The busier tier's bytes of the whole step (every microbatch's and the all-reduce's, which
  /// share its links) at its bandwidth; shared_nvlink is NVLink's
  Seconds shared, shared_nvlink;
  Seconds step;                     ///< max(pipeline, dp, shared)
  double tokens_per_microbatch = 0; ///< per DP replica; must be >= 1
  Bytes memory;                     ///< HBM needed on one GPU
  bool fits = true;                 ///< memory <= capacity and tokens_per_microbatch >= 1
  double utilization = 0;           ///< model FLOP / (GPUs x peak x step)
  /// compute, hbm, nvlink, network, latency, pipeline_bubble, dp_network, shared_nvlink or
  /// shared_network
  std::string binding;
};
PlanTimes evaluate_plan(const ModelShape& shape, const FrontierHardware& hw,
                        const ParallelPlan& plan);

/// One kind of wait on a layer's serial path, forward and backward: `count` waits of `each`.
struct PathStep {
  const char* what = "";
  const char* tier = ""; ///< the tier the waits cross, "" for kernels
  double count = 0;
  Seconds each;
  [[nodiscard]] Seconds total() const { return each * count; }
};

/// A plan's latency term (PlanTimes::latency): the serial path of one layer, forward and
/// backward (2 matmul kernels each way, the weight gradients off the path; 2 collective phases
/// per TP axis each way, each of log2 p or p - 1 steps; 2 EP all-to-alls each way), times the
/// most loaded stage's layers, plus one send per chunk boundary each way.
struct LatencyPath {
  std::array<PathStep, 4> layer{}; ///< kernels, 1-D TP, 2-D TP, EP
  double layers = 0;
  Seconds sends;
  [[nodiscard]] Seconds per_layer() const {
    Seconds t;
    for (const PathStep& s : layer) t += s.total();
    return t;
  }
  [[nodiscard]] Seconds total() const { return per_layer() * layers + sends; }
};
LatencyPath latency_path(const ModelShape& shape, const FrontierHardware& hw,
                         const ParallelPlan& plan);

struct FrontierPoint {
  ModelShape shape;
  Seconds step_budget; ///< duration / steps
  bool feasible = false;
  std::string reason; ///< why not, when infeasible
  ParallelPlan plan;  ///< best plan; for an infeasible point, the fastest one tried
  PlanTimes times;
};

struct FrontierCurve {
  std::string name; ///< "dense" or "moe"
  std::vector<FrontierPoint> points;
  double max_utilization = 0;           ///< the sustained maximum: efficiency of the GPU
  std::optional<Flop> utilization_knee; ///< largest C with utilization >= knee_fraction x max
  std::optional<Flop> latency_wall;     ///< largest C that finishes within the duration
};

struct FrontierResult {
  FrontierOptions options;
  FrontierHardware hardware;
  std::vector<FrontierCurve> curves; ///< dense, then MoE
};

/// The best plan for one compute level.
FrontierPoint frontier_point(Flop compute, const FrontierOptions& options, bool moe);
/// Told the compute levels searched so far and in all: once with none before the first
/// search, then after each (a frontier of many levels takes minutes; the CLI shows an ETA).
using FrontierProgress = std::function<void(int done, int total)>;
FrontierCurve frontier_curve(const FrontierOptions& options, bool moe,
                             const FrontierProgress& progress = {});
/// Validates the options, then computes the dense and the MoE curves.
FrontierResult run_frontier(const FrontierOptions& options, const FrontierProgress& progress = {});

std::string to_string(CollectiveLatency c);

/// Why `trainsim run` cannot replay `point` as a scenario, or "" when it can: an infeasible
/// point has no plan, the simulator's 2-D TP is the dense MLP block's (no experts), its loader
/// needs pp x interleave to divide the layers, and a scenario's words are FP32, BF16 or FP8.
std::string replay_obstacle(const FrontierPoint& point);

/// The point as a scenario `trainsim run` replays: MLP blocks at the point's shape (d_model,
/// d_ff and the tokens of a replica's microbatch rounded to whole numbers; one sequence per
/// microbatch), the GPU `hw` priced, the plan as an execution (ZeRO-1, 1F1B or interleaved,
/// the DP all-reduce started in the last backward pass: the simulator's nearest to the
/// paper's overlap), on frontier_topology(). Collectives are the scenario defaults (rings):
/// the frontier's tree latency is a floor no replayed schedule reaches. Needs
/// replay_obstacle(point) == "".
Scenario frontier_scenario(const FrontierPoint& point, const FrontierHardware& hw);

/// The topology frontier_scenario() replays on, the one place that builds it: rail-optimized
/// nodes (every GPU its own NIC, DP and PP rings on their rails: the frontier's uncontended
/// network tier) of `hw.fabric.domain` GPUs when a TP group fits in one evenly, else of one TP
/// group (e.g. 6), with the fabric's NVLink and NIC bandwidths. The generator's per-hop
/// latencies (0.5 us) give the frontier's default steps, 1 us in a node and 3 us across;
/// latency knobs are not carried over.
topo::TopologySpec frontier_topology(const ParallelPlan& plan, const FrontierHardware& hw);

} // namespace trainsim
