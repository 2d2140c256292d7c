// The collectives and kernels of one layer block, in the order a stage's program runs them
// (models/step_program.cpp). Internal to models/.
#pragma once

#include <optional>
#include <vector>

#include "models/step_compute.hpp"
#include "models/step_program.hpp"

namespace trainsim::program_detail {

/// What a block's collectives move, per GPU and microbatch (LayerCosts).
struct BlockBytes {
  Bytes output;   ///< the block's output: its TP reduction (and, backward, its first gather)
  Bytes input;    ///< its input: what it gathers forward under sequence parallelism
  Bytes routed;   ///< an expert block's routed tokens: output x top_k (LayerCosts::ep_dispatch)
  Bytes routing;  ///< its router's probabilities and map (LayerCosts::ep_routing)
  Bytes tp2;      ///< the MLP block's hidden all-reduce under 2-D TP; 0: none
};

/// A dense block (`hidden`: the MLP block, whose 2-D TP all-reduce splits its kernel) or,
/// with `experts` and no sequence parallelism, an expert block whose all-to-alls carry the
/// whole microbatch's routed tokens.
std::vector<Op> block(const ExecutionSpec& e, Seconds kernel, const BlockBytes& bytes, bool fwd,
                      bool experts, bool hidden);

/// Of an expert block's backward kernels, the weights' gradients that delay_wgrad_compute runs
/// as an op of their own (OpKind::weight_gradients) just before the block's last all-to-all,
/// where ep_overlap's pairs take them past it; `routed` of them follows the routed tokens.
struct DelayedWeightGradients {
  Seconds kernel, routed;
};
/// What the expert block runs apart under delay_wgrad_compute (none without it).
DelayedWeightGradients delayed_weight_gradients(const ExecutionSpec& e, const BlockTime& b);
/// The routed kernels' part of a pass's time: the backward without the recomputed forward
/// where that runs on its own (`less_forward`).
Seconds routed_time(const BlockTime& b, bool forward, bool less_forward);

/// The expert block: block() without sequence parallelism (or TP), else Megatron-Core's
/// all-to-all dispatch of each TP rank's sequence shard. `routed`: of `kernel`, what follows
/// the routed tokens (Op::routed); its first all-to-all goes to the experts (Op::to_experts).
/// `delayed`: of them, what runs apart (backward only).
std::vector<Op> expert_block(const ExecutionSpec& e, const ModelSpec& m, Seconds kernel,
                             Seconds routed, const BlockBytes& bytes, bool fwd,
                             DelayedWeightGradients delayed = {});

/// A steady-state forward pass's ops and the backward's after it as ep_overlap runs them
/// together, layer by layer (models/step_program_pairs.cpp). Each op keeps its own pass's
/// microbatch, chunk and direction.
std::vector<Op> paired(const std::vector<Op>& forward, const std::vector<Op>& backward);

/// Activation offloading (offload_layers; models/step_program_offload.cpp) around the model's
/// layer `layer`: the wait its forward (`forward`) or backward opens with, and the copy its
/// kernels end with, of `offloaded` (offloaded_activations(), once a program: every pass
/// copies the same bytes); none where the schedule has none.
std::optional<Op> offload_wait(const Scenario& s, int layer, bool forward);
std::vector<Bytes> offloaded_activations(const Scenario& s);
std::optional<Op> offload_copy(const Scenario& s, const std::vector<Bytes>& offloaded, int layer,
                               bool forward);

/// `ops` (an attention block) with context parallelism's gathers of `kv` bytes of keys and
/// values around its kernel.
std::vector<Op> with_context(std::vector<Op> ops, Bytes kv, const ExecutionSpec& e, bool fwd);

} // namespace trainsim::program_detail
