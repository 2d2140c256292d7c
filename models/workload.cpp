#include "models/workload.hpp"

#include <algorithm>

#include "models/operators.hpp"

namespace trainsim {
namespace {

double tokens_per_microbatch(const ModelSpec& m, const ExecutionSpec& e) {
  return static_cast<double>(e.micro_batch) * static_cast<double>(m.seq_len);
}

// A matmul of `tokens` x `in` by `in` x `out`, split `split` ways: FLOP and HBM traffic on one
// GPU (weights read once per microbatch; input read and output written once).
KernelCost matmul(double tokens, double in, double out, double split, double bytes_per_word) {
  double flop = 2.0 * tokens * in * out / split;
  double bytes = (in * out + tokens * (in + out)) * bytes_per_word / split;
  return {Flop(flop), Bytes(bytes)};
}

KernelCost operator+(KernelCost a, KernelCost b) { return {a.flop + b.flop, a.hbm + b.hbm}; }

// Query, key and value projections: d_model wide for the queries, kv_heads x d_head for keys
// and values each (grouped-query attention shares them among heads; MHA: 3 d_model in all).
double qkv_width(const ModelSpec& m) {
  double d = static_cast<double>(m.d_model);
  return d + 2.0 * m.kv_heads_or_heads() * (d / m.heads);
}

KernelCost attention_cost(const ModelSpec& m, double tokens, double tp) {
  double d = static_cast<double>(m.d_model), w = m.bytes_per_word.value();
  KernelCost qkv = matmul(tokens, d, qkv_width(m), tp, w);
  KernelCost out = matmul(tokens, d, d, tp, w);
  // Scores (Q K^T) and weighted values: 2 matmuls of 2 * tokens * seq * d FLOP each,
  // counted in full as in Megatron's FLOP accounting; no weights to read.
  double s = static_cast<double>(m.seq_len);
  KernelCost scores{Flop(4.0 * tokens * s * d / tp), Bytes(4.0 * tokens * d * w / tp)};
  return qkv + out + scores;
}

KernelCost mlp_cost(const ModelSpec& m, double tokens, const ExecutionSpec& e) {
  double d = static_cast<double>(m.d_model), f = static_cast<double>(m.d_ff), w = m.bytes_per_word.value();
  double up_width = m.gated_mlp ? 2.0 * f : f;
  // Each token visits top_k experts; the GPU holds experts / ep of them, each split over tp.
  double routed_tokens = tokens * m.top_k;
  double experts_here = static_cast<double>(m.experts) / e.ep;
  KernelCost up = matmul(routed_tokens, d, up_width, e.tp, w);
  KernelCost down = matmul(routed_tokens, f, d, e.tp, w);
  // matmul() charged one weight read for one expert; the other local experts are read too.
  double weight_bytes = (d * up_width + f * d) * w / e.tp;
  return {up.flop + down.flop, up.hbm + down.hbm + Bytes(weight_bytes * (experts_here - 1.0))};
}

double expert_params(const ModelSpec& m) {
  return (m.gated_mlp ? 3.0 : 2.0) * static_cast<double>(m.d_model) * static_cast<double>(m.d_ff);
}

double attention_params(const ModelSpec& m) {
  double d = static_cast<double>(m.d_model);
  return m.kind == ModelKind::transformer ? d * qkv_width(m) + d * d : 0.0;
}

// The embedding (first stage) and LM head (last stage) parameters a GPU of `stage` holds.
double vocabulary_params(const ModelSpec& m, const ExecutionSpec& e, int stage) {
  return (stage == 0 ? embedding_params(m, e) : 0.0) + (stage == e.pp - 1 ? head_params(m, e) : 0.0);
}

} // namespace

LayerCosts layer_costs(const ModelSpec& m, const ExecutionSpec& e) {
  double tokens = tokens_per_microbatch(m, e);
  double w = m.bytes_per_word.value();
  LayerCosts c;
  if (m.kind == ModelKind::transformer) c.attention = attention_cost(m, tokens, e.tp);
  c.mlp = mlp_cost(m, tokens, e);
  c.tp_allreduce = Bytes(tokens * static_cast<double>(m.d_model) * w);
  c.tp_allreduces = e.tp > 1 ? (m.kind == ModelKind::transformer ? 2 : 1) : 0;
  c.pp_activation = c.tp_allreduce;
  c.params = (attention_params(m) + expert_params(m) * m.experts / e.ep) / e.tp;
  c.active_params = (attention_params(m) + expert_params(m) * m.top_k) / e.tp;
  return c;
}

GradientBytes gradient_bytes(const Scenario& s, int stage) {
  const ExecutionSpec& e = s.execution;
  LayerCosts c = layer_costs(s.model, e);
  double dense = e.ep == 1 ? c.params : attention_params(s.model) / e.tp;
  double layers = chunk_layers(s.model, e, stage) * e.chunks();
  Bytes word = s.model.bytes_per_word;
  return {word * (dense * layers + vocabulary_params(s.model, e, stage)), word * ((c.params - dense) * layers)};
}

int stage_layers(int layers, int pp, int stage) { return layers / pp + (stage < layers % pp ? 1 : 0); }

int chunk_layers(const ModelSpec& m, const ExecutionSpec& e, int stage) {
  return e.chunks() > 1 ? m.layers / (e.pp * e.chunks()) : stage_layers(m.layers, e.pp, stage);
}

double tokens_per_step(const ModelSpec& m, const ExecutionSpec& e) {
  return static_cast<double>(e.global_batch) * static_cast<double>(m.seq_len);
}

Flop model_flop_per_step(const ModelSpec& m, const ExecutionSpec& e) {
  // Forward FLOP of one layer on the whole batch = per-GPU FLOP x tp, scaled from one
  // microbatch to the global batch, plus the logits GEMM; backward doubles it.
  LayerCosts c = layer_costs(m, e);
  double per_microbatch = (c.attention.flop + c.mlp.flop).value() * e.tp;
  double microbatches = static_cast<double>(e.global_batch) / static_cast<double>(e.micro_batch);
  double logits = 2.0 * tokens_per_step(m, e) * static_cast<double>(m.d_model) * static_cast<double>(m.vocab);
  return Flop(3.0 * (per_microbatch * microbatches * m.layers + logits));
}

Seconds kernel_time(const KernelCost& cost, const GpuSpec& gpu) {
  Seconds compute = cost.flop / (gpu.peak * gpu.matmul_efficiency);
  Seconds memory = cost.hbm / gpu.hbm_bandwidth;
  return std::max(compute, memory) + gpu.kernel_latency;
}

MemoryUse memory_per_gpu(const ModelSpec& m, const ExecutionSpec& e) {
  LayerCosts c = layer_costs(m, e);
  double layers = stage_layers(m.layers, e.pp, 0);
  double params = c.params * layers + vocabulary_params(m, e, 0);
  double w = m.bytes_per_word.value();
  MemoryUse use;
  use.weights = Bytes(params * w / (e.zero >= 3 ? e.dp : 1));
  use.gradients = Bytes(params * w / (e.zero >= 2 ? e.dp : 1));
  use.optimizer = e.optimizer_bytes_per_param * params / (e.zero >= 1 ? e.dp : 1);
  // Activations kept for backward, per layer and microbatch (Korthikanti et al. 2022) with
  // flash attention, which keeps no attention-score matrix: 34 x tokens x d_model bytes / tp
  // for a transformer; an MLP block keeps its input and hidden activations. Full
  // recomputation keeps only each layer's input.
  double tokens = tokens_per_microbatch(m, e), d = static_cast<double>(m.d_model);
  double per_layer = m.kind == ModelKind::transformer
                         ? tokens * d * 34.0 / e.tp
                         : tokens * (d + static_cast<double>(m.d_ff) * m.top_k * (m.gated_mlp ? 3 : 2)) * w / e.tp;
  if (e.recompute == Recompute::full) per_layer = tokens * d * w;
  double in_flight = e.schedule == PipelineSchedule::gpipe ? static_cast<double>(e.microbatches())
                                                           : std::min<double>(e.pp, static_cast<double>(e.microbatches()));
  use.activations = Bytes(per_layer * layers * in_flight);
  return use;
}

std::string to_string(PipelineSchedule s) {
  switch (s) {
  case PipelineSchedule::gpipe: return "gpipe";
  case PipelineSchedule::one_f_one_b: return "1f1b";
  case PipelineSchedule::interleaved: return "interleaved";
  }
  return "?";
}
std::string to_string(ModelKind k) { return k == ModelKind::mlp ? "mlp" : "transformer"; }
std::string to_string(ComputeModel c) { return c == ComputeModel::roofline ? "roofline" : "operators"; }
std::string to_string(Recompute r) {
  switch (r) {
  case Recompute::none: return "none";
  case Recompute::full: return "full";
  case Recompute::selective: return "selective";
  }
  return "?";
}

} // namespace trainsim
