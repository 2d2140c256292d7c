// What one GPU holds (models/workload.hpp): the activations a layer keeps for its backward,
// and weights, gradients and optimizer state as ZeRO shards them, per pipeline stage.
#include <algorithm>
#include <array>
#include <string>

#include "models/moe_load.hpp"
#include "models/stage_layout.hpp"
#include "models/workload.hpp"
#include "models/workload_parts.hpp"

namespace trainsim {
namespace {

using namespace workload_parts;

// What an expert layer keeps besides (Megatron-Core with fused permutation, the probabilities
// applied in the experts' activation, so the unpermute keeps nothing): the routed copies the
// experts' first GEMM took, gathered whole on every TP rank, and, for the tokens this rank
// routed, the router's FP32 probabilities and one-byte map (E per token) and each copy's
// probability.
double routing_activations(const LayerShape& l, const GpuShare& g, const StageResidency& r,
                           double linear_input) {
  if (l.experts <= 1) return 0.0;
  double copies = l.top_k * l.routed_share;
  double routed_here = r.sequence_parallel ? g.tokens / g.tp() : g.tokens;
  return g.tokens * copies * l.d_model * linear_input +
         routed_here * (l.experts * kRouterStateBytes + copies * 4.0);
}

// The MLP's hidden activations per token (at `in` bytes the ones a GEMM takes, 1 under FP8,
// the rest at the word): each MLP's activation input (2 f gated, f else) and fc2's input (f),
// for the routed experts (top_k x the routed share of d_ff) and the shared ones. `moe_act`
// drops the routed experts' fc2 input, `mlp` a dense layer's whole hidden, `shared_experts`
// the shared ones'.
double mlp_hidden(const LayerShape& l, const StageResidency& r, double in) {
  double w = l.bytes_per_word.value(), gate = l.gated_mlp ? 2.0 : 1.0;
  double routed = l.top_k * l.routed_share * l.d_ff, shared = l.shared_ff;
  bool expert_layer = l.experts > 1;
  double routed_act = routed * gate * w, routed_fc2 = routed * in;
  if (expert_layer && r.recomputes(RecomputeModule::moe_act)) routed_fc2 = 0.0;
  if (!expert_layer && r.recomputes(RecomputeModule::mlp)) routed_act = routed_fc2 = 0.0;
  double shared_kept = shared * (gate * w + in);
  if (r.recomputes(RecomputeModule::shared_experts)) shared_kept = 0.0;
  return routed_act + routed_fc2 + shared_kept;
}

// Activations kept for backward, per layer and microbatch, term by term as Korthikanti et
// al. 2022 (section 4.1) count them for their GPT (MHA, dropout, a 4 d_model GeLU MLP), where
// they sum to 34 bytes per token and d_model at 2 bytes a word: per norm its input (2 words);
// attention: the QKV GEMM's input, Q, K and V (1 + 2 kv / d_model), the output projection's
// input; the MLP: fc1's input, the activation's input and fc2's (2 d_ff words, or 3 d_ff for
// a gated MLP's gate, up and product), per expert a token visits; a 1-byte dropout mask after
// each block. Without sequence parallelism the norms' inputs, the QKV and fc1 inputs and the
// masks are whole on every TP rank, the rest split (their eq. 2: 10 + 24 / t). An unfused
// attention also keeps 5 bytes per score (none under flash attention or selective
// recomputation of the core). An MLP block keeps its input and hidden activations. Full
// recomputation keeps each layer's input. Selective recomputation's other modules drop what
// they would keep past their input (mlp_hidden()): `layernorm` the norms' outputs, the
// inputs of the GEMMs after them; `mla_up_proj` Q, K and V.
double activations_per_layer(const LayerShape& l, const GpuShare& g, const StageResidency& r) {
  double tokens = g.tokens, d = l.d_model, w = l.bytes_per_word.value(), tp = g.tp();
  if (r.recompute) return tokens * d * w;
  double scores =
      r.recomputes(RecomputeModule::core_attn) ? 0.0 : 5.0 * tokens * l.score_elements / tp;
  if (l.kind != ModelKind::transformer) return tokens * (d * w + mlp_hidden(l, r, w)) / tp;
  // A linear layer's input at `in` bytes (1 under FP8), the rest at the word.
  double in = l.linear_input > 0 ? l.linear_input : w, q = query_width(l), kv = key_width(l);
  double mlp_input = l.experts > 1 ? d * w : d * in; // the router's BF16 input, or fc1's
  if (l.experts > 1 && l.shared_ff > 0) mlp_input += d * in;
  double normed = d * in + mlp_input; // the two norms' outputs, as the next GEMMs' inputs
  if (r.recomputes(RecomputeModule::layernorm)) normed = 0.0;
  double whole = 2.0 * d * w + normed + (l.dropout ? 2.0 * d : 0.0);
  double mlp = mlp_hidden(l, r, in);
  double split = (q + 2.0 * kv) * w + q * in + mlp; // Q, K, V, out_proj's input; MLP hidden
  if (l.qk_norm) split += (q + kv) * w;               // the QK norm's input
  if (l.mla.on()) {
    // Latent attention: the latents before and after their norms and the rotary key, then
    // Q and K (qk_head_dim per head), V and the output projection's input (v_head_dim).
    const LatentAttention& a = l.mla;
    whole += (2.0 * (a.q_lora_rank + a.kv_lora_rank) + a.qk_rope_head_dim) * w;
    double qkv = (2.0 * l.heads * a.qk_head_dim() + l.heads * a.v_head_dim) * w;
    if (r.recomputes(RecomputeModule::mla_up_proj)) qkv = 0.0;
    split = qkv + l.heads * a.v_head_dim * in + mlp;
  }
  return tokens * (r.sequence_parallel ? (whole + split) / tp : whole + split / tp) + scores +
         routing_activations(l, g, r, in);
}

// ZeRO shards a parameter's state over the ranks that hold the same parameter: all of DP for
// a dense one, only the ranks with the same experts for an expert one (dp / ep, or
// StageResidency::expert_dp where the experts fold over TP x DP).
Bytes state(Bytes per_param, const GpuParams& p, bool sharded, const StageResidency& r, int ep) {
  if (!sharded) return per_param * p.total();
  double experts_over = r.expert_dp > 0 ? r.expert_dp : r.dp / ep;
  return per_param * p.dense / r.dp + per_param * p.experts / experts_over;
}

} // namespace

MemoryUse memory_use(const LayerShape& l, const GpuShare& g, const StageResidency& r) {
  GpuParams layers = params_on_gpu(l, g, r.layers);
  GpuParams params = layers;
  params.dense += r.vocabulary_params;
  Bytes word = l.bytes_per_word;
  auto or_word = [word](Bytes b) { return b > Bytes(0) ? b : word; };
  bool sharded = r.zero >= 3;
  MemoryUse use;
  // Every layer parameter is counted as a linear layer's: the norms' and router's, kept at
  // the word, are a few thousandths of a layer.
  use.weights = state(word, {r.vocabulary_params, 0.0}, sharded, r, g.ep) +
                state(sharded ? or_word(r.shard_weight) : or_word(r.whole_weight), layers,
                      sharded, r, g.ep);
  if (!sharded) use.fp8_copies = r.fp8_copy * layers.total();
  if (r.gathered_layers > 0) {
    double gathered = params_on_gpu(l, g, 1).total() * r.gathered_layers;
    use.weights += or_word(r.whole_weight) * gathered;
    use.fp8_copies += r.fp8_copy * gathered;
  }
  Bytes gradient = r.gradient_bytes_per_param > Bytes(0) ? r.gradient_bytes_per_param : word;
  use.gradients = state(gradient, params, r.zero >= 2, r, g.ep);
  if (r.delayed_update) use.gradients += state(gradient, params, false, r, g.ep);
  use.optimizer = state(r.optimizer_bytes_per_param, params, r.zero >= 1, r, g.ep);
  use.activations = Bytes(activations_per_layer(l, g, r) * r.layers * r.in_flight);
  return use;
}

namespace {

// FP8 weights (docs/compute-model.md, "FP8 weights in memory"): with fp8_param_gather the
// layers' weights are FP8 themselves (Megatron-Core builds them under TE's fp8_model_init), as
// Transformer Engine keeps them for a step, and ZeRO-3 shards them at their gathered word; else
// they stay at the model's word and TE caches an FP8 copy beside each weight held whole.
void keep_fp8_weights(const ModelSpec& m, const ExecutionSpec& e, const GpuSpec& gpu,
                      StageResidency& r) {
  Bytes fp8 = fp8_weight_bytes(m, gpu);
  if (fp8 <= Bytes(0)) return;
  if (e.fp8_param_gather)
    r.whole_weight = fp8, r.shard_weight = gathered_parameter_word(m, e);
  else
    r.fp8_copy = fp8;
}

} // namespace

namespace {

StageResidency residency(const ModelSpec& m, const ExecutionSpec& e, const GpuSpec& gpu) {
  StageResidency r;
  r.dp = e.weight_replicas();
  if (e.experts_fold()) r.expert_dp = e.expert_replicas();
  r.zero = e.zero;
  r.optimizer_bytes_per_param = e.optimizer_bytes_per_param;
  r.recompute = e.recompute == Recompute::full;
  r.again = e.selective_modules();
  r.sequence_parallel = e.sequence_parallel || e.tp == 1;
  r.gradient_bytes_per_param = gradient_word(m, e);
  r.delayed_update = e.delayed_update;
  r.gathered_layers = e.zero3_prefetch ? 2 : 0;
  keep_fp8_weights(m, e, gpu, r);
  return r;
}

// The expert layers' shape, as the memory check holds it: under routing imbalance the busiest
// EP rank's experts keep the most routed rows (its routed probabilities counted at the same
// share, a few bytes more).
LayerShape busiest_shape(const ModelSpec& m, const ExecutionSpec& e) {
  LayerShape shape = layer_shape(m, e);
  shape.routed_share *= busiest_expert_load(m, e);
  return shape;
}

} // namespace

Bytes layer_activations(const ModelSpec& m, const ExecutionSpec& e, int layer) {
  StageResidency r = residency(m, e, GpuSpec{});
  r.recompute = e.recomputes(layer);
  if (layer >= m.dense_layers)
    return Bytes(activations_per_layer(busiest_shape(m, e), gpu_share(m, e), r));
  LayerSpec d = layer_spec(m, e, {true, false});
  return Bytes(activations_per_layer(layer_shape(d.model), gpu_share(d.model, d.exec), r));
}

std::vector<MemoryUse> memory_per_stage(const ModelSpec& m, const ExecutionSpec& e,
                                        const GpuSpec& gpu) {
  StageResidency r = residency(m, e, gpu);
  LayerShape shape = busiest_shape(m, e);
  GpuShare share = gpu_share(m, e);
  std::vector<MemoryUse> stages;
  LayerSpec d = layer_spec(m, e, {true, false});
  LayerShape dense_shape = layer_shape(d.model);
  GpuShare dense_share = gpu_share(d.model, d.exec);
  bool full = e.recompute == Recompute::full;
  for (int stage = 0; stage < e.pp; ++stage) {
    double layers = stage_layer_count(m, e, stage);
    // memory_use() counts activations as layers x microbatches in flight; every group of the
    // stage's layers below is held as often as the others.
    r.in_flight = layers > 0 ? peak_held_layers(m, e, stage) / layers : 0.0;
    // The stage's layers by what they hold: a dense or an experts' MLP (dense_layers), their
    // activations or only their input (recompute_layers); `held`, of them, those whose
    // activations stay on the GPU: under offload_layers (pp 1) the last layers, which the
    // forward's end holds together, as many as Transformer Engine's offloading allows at once.
    std::array<std::array<double, 2>, 2> count{}, held{}; // [dense][recomputed]
    for (int c = 0; c < e.chunks(); ++c) {
      int first = chunk_first_layer(m, e, stage, c), n = chunk_layers(m, e, stage, c);
      for (int l = 0; l < n; ++l) {
        count[first + l < m.dense_layers][e.recomputes(l)] += 1;
        held[first + l < m.dense_layers][e.recomputes(l)] += first + l >= e.offload_layers ? 1.0 : 0.0;
      }
    }
    MemoryUse use;
    bool first_group = true; // holds the vocabulary, whatever its layers
    for (bool dense : {false, true})
      for (bool recomputed : {full, !full}) {
        double n = count[dense][recomputed];
        if (n <= 0 && !first_group) continue;
        StageResidency group = r;
        group.layers = n, group.recompute = recomputed;
        group.vocabulary_params = first_group ? vocabulary_params(m, e, stage) : 0.0;
        MemoryUse more =
            dense ? memory_use(dense_shape, dense_share, group) : memory_use(shape, share, group);
        if (n > 0) more.activations = more.activations * (held[dense][recomputed] / n);
        use.weights += more.weights, use.gradients += more.gradients;
        use.optimizer += more.optimizer, use.activations += more.activations;
        use.fp8_copies += more.fp8_copies;
        first_group = false;
      }
    stages.push_back(use);
  }
  return stages;
}

std::string memory_parts(const MemoryUse& use) {
  std::string parts = "weights " + format(use.weights) + ", gradients " +
                      format(use.gradients) + ", optimizer " + format(use.optimizer) +
                      ", activations " + format(use.activations);
  if (use.fp8_copies > Bytes(0)) parts += ", FP8 weight copies " + format(use.fp8_copies);
  return parts;
}

MemoryUse memory_per_gpu(const ModelSpec& m, const ExecutionSpec& e, const GpuSpec& gpu) {
  std::vector<MemoryUse> stages = memory_per_stage(m, e, gpu);
  return *std::max_element(stages.begin(), stages.end(),
                           [](const auto& a, const auto& b) { return a.total() < b.total(); });
}

} // namespace trainsim
