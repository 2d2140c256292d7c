#include "models/workload.hpp"
#include "models/workload_parts.hpp"

#include <algorithm>

#include "models/operators.hpp"
#include "models/stage_layout.hpp"

namespace trainsim {

namespace workload_parts {

// The queries' width (heads x d_head): d_model unless the model sets its heads' width.
double query_width(const LayerShape& l) { return l.q_width > 0 ? l.q_width : l.d_model; }

// The keys' (and values') width: kv_width under grouped-query attention or a set head width,
// else d_model.
double key_width(const LayerShape& l) { return l.kv_width > 0 ? l.kv_width : l.d_model; }

double head_stage_params(const ModelSpec& m, const ExecutionSpec& e) {
  return head_params(m, e) + mtp_params(m, e);
}

double vocabulary_params(const ModelSpec& m, const ExecutionSpec& e, int stage) {
  return (stage == 0 ? embedding_params(m, e) : 0.0) +
         (stage == e.head_stage() ? head_stage_params(m, e) : 0.0);
}

} // namespace workload_parts

namespace {

using namespace workload_parts;


// A matmul of `tokens` x `in` by `in` x `out`, split `split` ways: FLOP and HBM traffic on one
// GPU (weights read once per microbatch; input read and output written once).
KernelCost matmul(double tokens, double in, double out, double split, double bytes_per_word) {
  double flop = 2.0 * tokens * in * out / split;
  double bytes = (in * out + tokens * (in + out)) * bytes_per_word / split;
  return {Flop(flop), Bytes(bytes)};
}

KernelCost operator+(KernelCost a, KernelCost b) { return {a.flop + b.flop, a.hbm + b.hbm}; }

// Query, key and value projections: the queries' width, and the keys' each for keys and values
// (grouped-query attention shares them among heads; MHA: 3 d_model in all).
double qkv_width(const LayerShape& l) {
  if (l.q_width <= 0 && l.kv_width <= 0) return 3.0 * l.d_model;
  return query_width(l) + 2.0 * key_width(l);
}

// Latent attention's weights: the down projections to the latents and the rotary key, the up
// projections from them to every head, the output projection.
double latent_params(const LayerShape& l) {
  const LatentAttention& a = l.mla;
  double d = l.d_model, n = l.heads, qk = a.qk_head_dim();
  double q = a.q_lora_rank > 0 ? d * a.q_lora_rank + a.q_lora_rank * n * qk : d * n * qk;
  double kv = d * (a.kv_lora_rank + a.qk_rope_head_dim) +
              static_cast<double>(a.kv_lora_rank) * n * (a.qk_nope_head_dim + a.v_head_dim);
  return q + kv + n * a.v_head_dim * d;
}

// Latent attention on one GPU: its projections (the down ones priced for the GPU's share of
// the tokens, as under sequence parallelism), and the scores and weighted values counted in
// full over keys qk_head_dim wide and values v_head_dim wide.
KernelCost latent_attention_cost(const LayerShape& l, double tokens, double tp) {
  const LatentAttention& a = l.mla;
  double d = l.d_model, w = l.bytes_per_word.value(), n = l.heads;
  double qk = n * a.qk_head_dim(), v = n * a.v_head_dim, r_q = a.q_lora_rank;
  KernelCost q = r_q > 0 ? matmul(tokens, d, r_q, tp, w) + matmul(tokens, r_q, qk, tp, w)
                         : matmul(tokens, d, qk, tp, w);
  KernelCost kv = matmul(tokens, d, a.kv_lora_rank + a.qk_rope_head_dim, tp, w) +
                  matmul(tokens, a.kv_lora_rank, n * a.qk_nope_head_dim + v, tp, w);
  KernelCost out = matmul(tokens, v, d, tp, w);
  double s = l.window > 0 ? std::min(l.window, l.seq_len) : l.seq_len;
  KernelCost scores{Flop(2.0 * tokens * s * (qk + v) / tp), Bytes(2.0 * tokens * (qk + v) * w / tp)};
  return q + kv + out + scores;
}

KernelCost attention_cost(const LayerShape& l, double tokens, double tp) {
  if (l.mla.on()) return latent_attention_cost(l, tokens, tp);
  double d = l.d_model, q = query_width(l), w = l.bytes_per_word.value();
  KernelCost qkv = matmul(tokens, d, qkv_width(l), tp, w);
  KernelCost out = matmul(tokens, q, d, tp, w);
  // Scores (Q K^T) and weighted values: 2 matmuls of 2 * tokens * seq * (heads x d_head) FLOP
  // each, counted in full as in Megatron's FLOP accounting; no weights to read.
  double s = l.window > 0 ? std::min(l.window, l.seq_len) : l.seq_len; // the keys a query sees
  KernelCost scores{Flop(4.0 * tokens * s * q / tp), Bytes(4.0 * tokens * q * w / tp)};
  return qkv + out + scores;
}

// d x d_ff matrices per expert: up and down, and the gate of a gated MLP.
double mlp_matrices(const LayerShape& l) { return l.gated_mlp ? 3.0 : 2.0; }

double attention_params(const LayerShape& l) {
  if (l.kind != ModelKind::transformer) return 0.0;
  double sinks = l.sinks ? l.heads : 0.0;
  return (l.mla.on() ? latent_params(l) : l.d_model * qkv_width(l) + l.d_model * query_width(l)) +
         sinks;
}

// The routed experts of `layers` layers this GPU holds, each split over etp.
double expert_params_on_gpu(const LayerShape& l, const GpuShare& g, double layers) {
  double experts_here = static_cast<double>(l.experts) / g.ep;
  return layers * experts_here * mlp_matrices(l) * l.d_model * l.d_ff / g.expert_tp();
}

// The shared experts of `layers` layers on this GPU: split over tp, on every EP rank.
double shared_params_on_gpu(const LayerShape& l, const GpuShare& g, double layers) {
  return layers * mlp_matrices(l) * l.d_model * l.shared_ff / g.tp();
}

} // namespace

LayerShape layer_shape(const ModelSpec& m) {
  LayerShape l{m.kind,
               static_cast<double>(m.d_model),
               static_cast<double>(m.d_ff),
               static_cast<double>(m.seq_len),
               m.experts,
               m.top_k,
               m.gated_mlp,
               m.bytes_per_word};
  if (m.kv_heads > 0) l.kv_width = m.kv_heads * (l.d_model / m.heads);
  if (m.head_dim > 0) {
    l.q_width = static_cast<double>(m.heads) * m.head_dim;
    l.kv_width = static_cast<double>(m.kv_heads_or_heads()) * m.head_dim;
  }
  if (m.per_operator() && m.attention == AttentionKernel::unfused)
    l.score_elements = static_cast<double>(m.heads) * l.seq_len;
  l.d_ff = static_cast<double>(m.expert_d_ff());
  l.shared_ff = static_cast<double>(m.shared_experts) * l.d_ff;
  l.dropout = m.dropout;
  l.qk_norm = m.kind == ModelKind::transformer && m.qk_norm;
  l.mla = m.mla;
  l.heads = m.heads;
  l.window = m.window;
  l.sinks = m.attention_sinks;
  if (m.precision == "fp8") l.linear_input = 1.0;
  return l;
}

LayerShape layer_shape(const ModelSpec& m, const ExecutionSpec& e) {
  LayerShape l = layer_shape(m);
  l.routed_share = routed_share(m, e);
  return l;
}

double routed_share(const ModelSpec& m, const ExecutionSpec& e) {
  double c = e.moe_capacity_factor;
  if (m.experts <= 1 || c <= 0) return 1.0;
  return e.moe_pad_to_capacity ? c : std::min(c, 1.0);
}

LayerKind layer_kind(const ModelSpec& m, int layer) {
  layer = std::min(layer, m.layers - 1); // a multi-token-prediction module repeats the last
  bool full = m.window > 0 && m.full_attention_every > 0 && (layer + 1) % m.full_attention_every == 0;
  return {layer < m.dense_layers, full};
}

std::vector<std::pair<LayerKind, int>> layer_kinds(const ModelSpec& m) {
  std::vector<std::pair<LayerKind, int>> kinds;
  for (int layer = 0; layer < m.stack_layers(); ++layer) {
    LayerKind k = layer_kind(m, layer);
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& c) { return c.first == k; });
    if (it == kinds.end())
      kinds.emplace_back(k, 1);
    else
      ++it->second;
  }
  return kinds;
}

LayerSpec layer_spec(const ModelSpec& m, const ExecutionSpec& e, LayerKind kind) {
  LayerSpec d{m, e};
  d.model.dense_layers = 0;
  d.model.full_attention_every = 0;
  if (kind.full_attention) d.model.window = 0;
  if (kind.dense) {
    d.model.experts = d.model.top_k = 1;
    d.model.moe_d_ff = 0;
    d.model.shared_experts = 0;
    d.exec.ep = 1;
  }
  return d;
}

GpuShare gpu_share(const ModelSpec& m, const ExecutionSpec& e) {
  // Context parallelism gives each of its ranks 1/cp of every sequence's tokens.
  double tokens = static_cast<double>(e.micro_batch) * static_cast<double>(m.seq_len) / e.cp;
  return {tokens, e.tp, e.tp_2d, e.ep, e.experts_fold() ? e.expert_tp() : 0};
}

KernelCost mlp_cost(const LayerShape& l, const GpuShare& g, double passes, double layers) {
  double d = l.d_model, w = l.bytes_per_word.value(), tp = g.tp();
  double up_matrices = l.gated_mlp ? 2.0 : 1.0;
  // `rows` token rows through an MLP of inner size f: up (d x up_matrices f) and down (f x d),
  // 2 FLOP per multiply-add each, summed as two matmuls so that a forward rounds as it did
  // when each was priced on its own; each matmul reads its input and writes its output.
  auto through = [&](double rows, double f) {
    auto matmul_flop = [&](double matrices) {
      return passes * 2.0 * rows * matrices * d * f / tp * layers;
    };
    double activations = passes * rows * ((d + up_matrices * f) + (f + d)) * w / tp * layers;
    return KernelCost{Flop(matmul_flop(up_matrices) + matmul_flop(1.0)), Bytes(activations)};
  };
  // Each token visits top_k experts; the GPU holds experts / ep of them, each split over tp.
  KernelCost cost = through(g.tokens * l.top_k * l.routed_share, l.d_ff);
  if (l.shared_ff > 0) cost = cost + through(g.tokens, l.shared_ff);
  double weights = expert_params_on_gpu(l, g, layers) + shared_params_on_gpu(l, g, layers);
  cost.hbm += Bytes(passes * weights * w);
  return cost;
}

GpuParams params_on_gpu(const LayerShape& l, const GpuShare& g, double layers) {
  // The shared experts are dense: every EP rank holds them and all of DP reduces them.
  double dense = layers * attention_params(l) / g.tp() + shared_params_on_gpu(l, g, layers),
         experts = expert_params_on_gpu(l, g, layers);
  // Replicated experts (ep 1) reduce with the dense weights, unless they fold over TP x DP,
  // whose TP ranks each hold them whole.
  if (g.ep == 1 && g.etp == 0) return {dense + experts, 0.0};
  return {dense, experts};
}

LayerCosts layer_costs(const LayerShape& l, const GpuShare& g) {
  double w = l.bytes_per_word.value();
  LayerCosts c;
  if (l.kind == ModelKind::transformer) c.attention = attention_cost(l, g.tokens, g.tp());
  c.mlp = mlp_cost(l, g);
  // 2-D TP (docs/paper-model.md's V, the Megatron pairing of frontier_plan.cpp): the up
  // matmul's input d_model is split over tp_2d and its output d_ff over tp, the down matmul's
  // the other way round, so a GPU holds tokens x d_model / tp_2d of the layer's input and
  // output, reduced over tp, and tokens x d_ff / tp of the hidden activation, reduced over
  // tp_2d. With tp_2d = 1 this is Megatron's 1-D TP.
  c.tp_allreduce = Bytes(g.tokens * l.d_model * w / g.tp_2d);
  c.attention_input =
      l.mla.on() ? Bytes(g.tokens * l.mla.latent_width() * w / g.tp_2d) : c.tp_allreduce;
  c.tp_allreduces = g.tp_1d > 1 ? (l.kind == ModelKind::transformer ? 2 : 1) : 0;
  if (g.tp_2d > 1)
    c.tp2_allreduce = Bytes(g.tokens * (l.top_k * l.d_ff + l.shared_ff) * w / g.tp_1d);
  c.pp_activation = c.tp_allreduce;
  if (l.experts > 1)
    c.ep_dispatch = c.tp_allreduce * (l.top_k * l.routed_share),
    c.ep_routing = Bytes(g.tokens * l.experts * kRouterStateBytes);
  c.params = params_on_gpu(l, g).total();
  c.active_params = (attention_params(l) +
                     mlp_matrices(l) * l.d_model * (l.d_ff * l.top_k + l.shared_ff)) /
                    g.tp();
  return c;
}

LayerCosts layer_costs(const ModelSpec& m, const ExecutionSpec& e) {
  LayerShape l = layer_shape(m, e);
  LayerCosts c = layer_costs(l, gpu_share(m, e));
  // With sequence parallelism a stage hands on its sequence-parallel shard: each TP rank
  // sends its 1/tp of the tokens (Megatron-LM's pipeline tensor shape is seq_length / tp);
  // scatter/gather sends 1/tp too, and the receivers all-gather the rest (models/step_program.cpp).
  if (e.sequence_parallel || e.pp_scatter_gather)
    c.pp_activation = c.pp_activation / static_cast<double>(e.tp);
  // Context parallelism gathers every CP rank's keys and values: the whole sequence's K and V
  // of this TP rank's heads (kv_width / tp each).
  // Latent attention's keys are qk_head_dim wide per head, its values v_head_dim.
  double kv_width = l.mla.on() ? l.heads * (l.mla.qk_head_dim() + l.mla.v_head_dim)
                               : 2.0 * key_width(l);
  if (e.cp > 1)
    c.cp_kv = Bytes(kv_width / e.tp * static_cast<double>(e.micro_batch) *
                    static_cast<double>(m.seq_len) * l.bytes_per_word.value());
  return c;
}

GradientBytes gradient_bytes(const Scenario& s, int stage) {
  const ExecutionSpec& e = s.execution;
  double layers = stage_layer_count(s.model, e, stage),
         dense = stage_dense_layers(s.model, e, stage);
  GpuParams p = params_on_gpu(layer_shape(s.model), gpu_share(s.model, e), layers - dense);
  if (dense > 0) {
    LayerSpec d = layer_spec(s.model, e, {true, false});
    p.dense += params_on_gpu(layer_shape(d.model), gpu_share(d.model, d.exec), dense).total();
  }
  Bytes word = gradient_word(s.model, e);
  return {word * (p.dense + vocabulary_params(s.model, e, stage)), word * p.experts};
}

Bytes gradient_word(const ModelSpec& m, const ExecutionSpec& e) {
  return e.fp32_gradients ? Bytes(4.0) : m.bytes_per_word;
}

Bytes gathered_parameter_word(const ModelSpec& m, const ExecutionSpec& e) {
  if (!e.fp8_param_gather) return m.bytes_per_word;
  switch (m.fp8_recipe) {
  case Fp8Recipe::blockwise:
    return Bytes(1.0 + 4.0 / (128.0 * 128.0));
  case Fp8Recipe::mxfp8:
    return Bytes(1.0 + 1.0 / 32.0);
  case Fp8Recipe::tensorwise:
  case Fp8Recipe::delayed:
  case Fp8Recipe::none:
    break;
  }
  return Bytes(1.0);
}

Bytes fp8_weight_bytes(const ModelSpec& m, const GpuSpec& gpu) {
  // Transformer Engine at d0067d0d (2026-08-22), module/base.py: a linear layer caches its
  // FP8 weight in _fp8_workspaces, which "persists beyond a single forward pass", and
  // _is_weight_workspace_valid() asks a Float8Tensor for its transpose only where
  // is_non_tn_fp8_gemm_supported() is false; an MXFP8 one for its row- and column-wise data.
  switch (m.fp8_recipe) {
  case Fp8Recipe::blockwise:
    return Bytes(2.0 * (1.0 + 4.0 / (128.0 * 128.0)));
  case Fp8Recipe::mxfp8:
    return Bytes(2.0 * (1.0 + 1.0 / 32.0));
  case Fp8Recipe::tensorwise:
  case Fp8Recipe::delayed:
    return Bytes(gpu.fp8_any_layout ? 1.0 : 2.0);
  case Fp8Recipe::none:
    break;
  }
  return Bytes(0.0);
}

double default_bucket_parameters(const ExecutionSpec& e) {
  return std::max(40e6, 1e6 * e.weight_replicas());
}

Bytes dp_bucket_bytes(const ModelSpec& m, const ExecutionSpec& e) {
  return e.dp_bucket ? *e.dp_bucket : gradient_word(m, e) * default_bucket_parameters(e);
}

double tokens_per_step(const ModelSpec& m, const ExecutionSpec& e) {
  return static_cast<double>(e.global_batch) * static_cast<double>(m.seq_len);
}

ModelParameters model_parameters(const ModelSpec& m) {
  LayerShape l = layer_shape(m);
  double expert = mlp_matrices(l) * l.d_model * l.d_ff;
  double shared = mlp_matrices(l) * l.d_model * l.shared_ff + attention_params(l);
  // A dense layer: the attention and one MLP of d_ff, all of it active.
  double dense = attention_params(l) + mlp_matrices(l) * l.d_model * static_cast<double>(m.d_ff);
  double d = l.d_model, vocabulary = 0;
  if (m.vocab > 0)
    vocabulary = 2.0 * static_cast<double>(m.vocab) * d +
                 (m.rotary ? 0.0 : static_cast<double>(m.seq_len) * d);
  // A multi-token-prediction module: its projection (2 d_model x d_model) and one layer of the
  // last layer's kind; it shares the embedding and the head.
  int dense_layers = m.dense_layers + (layer_kind(m, m.layers).dense ? m.mtp_layers : 0);
  double routed_layers = m.stack_layers() - dense_layers, dense_part = dense_layers * dense;
  double projections = m.mtp_layers * 2.0 * d * d;
  return {routed_layers * (shared + l.experts * expert) + dense_part + vocabulary + projections,
          routed_layers * (shared + l.top_k * expert) + dense_part + vocabulary + projections};
}

Flop model_flop_per_step(const ModelSpec& m, const ExecutionSpec& e) {
  // Forward FLOP of one layer on the whole batch = per-GPU FLOP x tp x tp_2d x cp, scaled from one
  // microbatch to the global batch, plus the logits GEMM; backward doubles it.
  auto per_microbatch = [](const ModelSpec& lm, const ExecutionSpec& le) {
    LayerCosts c = layer_costs(lm, le);
    return (c.attention.flop + c.mlp.flop).value() * le.tp_ranks() * le.cp;
  };
  double microbatches = static_cast<double>(e.global_batch) / static_cast<double>(e.micro_batch);
  // The logits GEMM, once more per multi-token-prediction module, with each module's
  // projection and its two input norms and final norm (Megatron-LM's count: 3 d_model each).
  double d = static_cast<double>(m.d_model), tokens = tokens_per_step(m, e);
  double logits = 2.0 * tokens * d * static_cast<double>(m.vocab) * (1 + m.mtp_layers) +
                  2.0 * tokens * m.mtp_layers * (2.0 * d * d + 3.0 * d);
  double layers = 0;
  for (const auto& [kind, count] : layer_kinds(m)) {
    LayerSpec k = layer_spec(m, e, kind);
    layers += per_microbatch(k.model, k.exec) * microbatches * count;
  }
  return Flop(3.0 * (layers + logits));
}

Seconds compute_time(Flop flop, const GpuSpec& gpu) {
  return flop / (gpu.peak * gpu.matmul_efficiency);
}

Seconds hbm_time(Bytes bytes, const GpuSpec& gpu) { return bytes / gpu.hbm_bandwidth; }

Seconds kernel_time(const KernelCost& cost, const GpuSpec& gpu) {
  return std::max(compute_time(cost.flop, gpu), hbm_time(cost.hbm, gpu)) + gpu.kernel_latency;
}

} // namespace trainsim
