#include "models/step_compute.hpp"

#include <algorithm>
#include <string_view>

#include "models/operators.hpp"
#include "models/workload.hpp"

namespace trainsim {
namespace {

// launch_overlap: the launches run while earlier kernels do, so of a kernel's launch latency
// only what its work does not cover remains. `t` holds identical kernels (an operator's
// count), whose overhead is their launches: count x (latency - work / count) where positive.
KernelTime launched(KernelTime t, const ExecutionSpec& e) {
  if (e.launch_overlap) t.overhead = std::max(Seconds(), t.overhead - (t.compute + t.hbm));
  return t;
}

// An operator's kernels as they run.
KernelTime op_time(const Operator& op, const Scenario& s) {
  return launched(operator_time(op, s.system.gpu), s.execution);
}

// The paper's kernel: the larger side of the roofline at matmul_efficiency x peak, plus one
// launch. Kept exactly as it was: the frontier and the validation suite's exact cases
// (ModelKind::mlp) hold it to hand arithmetic.
KernelTime roofline(const KernelCost& k, const Scenario& s) {
  Seconds c = compute_time(k.flop, s.system.gpu), h = hbm_time(k.hbm, s.system.gpu);
  KernelTime t;
  (c >= h ? t.compute : t.hbm) = std::max(c, h);
  t.overhead = s.system.gpu.kernel_latency;
  return launched(t, s.execution);
}

// Backward runs each roofline kernel twice (input and weight gradients), three times with
// full recomputation. The block is two matmuls of equal work (the paper's MLP block), so its
// first weight's gradient is half a forward.
BlockTime roofline_block(const KernelCost& k, const Scenario& s) {
  KernelTime forward = roofline(k, s);
  BlockTime t;
  t.forward = forward;
  t.backward = forward * (s.execution.recompute == Recompute::full ? 3.0 : 2.0);
  t.beside_collective = forward * 0.5;
  return t;
}

// An MLP block's weight gradients: its GEMMs' `*_wgrad` kernels and their accumulation. (The
// attention core's `scores_wgrad` and `context_wgrad` are no weights' gradients; only the MLP
// block's are read.)
bool weight_gradient(const Operator& op) {
  std::string_view name = op.name;
  return name.ends_with("_wgrad") || name.ends_with("_grad_accum");
}

KernelTime priced(const Operators& ops, const Scenario& s) {
  KernelTime t;
  for (const Operator& op : ops) t += op_time(op, s);
  return t;
}

// Each operator priced once, its time added to every share of the block it belongs to.
BlockTime priced(const BlockOperators& ops, const Scenario& s) {
  BlockTime t;
  for (const Operator& op : ops.forward) {
    KernelTime k = op_time(op, s);
    (op.per_step ? t.per_step : t.forward) += k;
    if (op.routed) t.routed_forward += k;
  }
  for (const Operator& op : ops.backward) {
    KernelTime k = op_time(op, s);
    t.backward += k;
    if (op.beside_collective) t.beside_collective += k;
    if (op.routed) t.routed_backward += k;
    if (!weight_gradient(op)) continue;
    t.weight_gradients += k;
    if (op.routed) t.routed_weight_gradients += k;
  }
  return t;
}

} // namespace

LayerTimes layer_times(const Scenario& s) {
  if (s.model.per_operator()) {
    LayerOperators ops = layer_operators(s.model, s.execution);
    return {priced(ops.attention, s), priced(ops.mlp, s)};
  }
  LayerCosts c = layer_costs(s.model, s.execution);
  LayerTimes t;
  if (s.model.kind == ModelKind::transformer) t.attention = roofline_block(c.attention, s);
  t.mlp = roofline_block(c.mlp, s);
  // The roofline's expert block is the experts' MLP alone.
  if (s.model.experts > 1) t.mlp.routed_forward = t.mlp.forward, t.mlp.routed_backward = t.mlp.backward;
  return t;
}

LayerPlan layer_plan(const Scenario& s, LayerKind kind, bool recomputed) {
  Scenario k = s;
  LayerSpec spec = layer_spec(s.model, s.execution, kind);
  k.model = spec.model, k.execution = spec.exec;
  if (!recomputed && k.execution.recompute == Recompute::full)
    k.execution.recompute = Recompute::none;
  return {kind, recomputed, layer_costs(k.model, k.execution), layer_times(k),
          k.execution.ep > 1};
}

BlockTime embedding_time(const Scenario& s) {
  return s.model.applied_profile().embedding_kernels
             ? priced(embedding_operators(s.model, s.execution), s)
             : BlockTime{};
}

BlockTime head_time(const Scenario& s) {
  return s.model.applied_profile().embedding_kernels
             ? priced(head_operators(s.model, s.execution), s)
             : BlockTime{};
}

KernelTime optimizer_time(const Scenario& s, int stage) {
  if (!s.model.applied_profile().optimizer_step) return {};
  const ExecutionSpec& e = s.execution;
  // ZeRO-1 and above shard the optimizer over the group that reduces each gradient: DP for
  // dense weights, the GPUs holding the same experts for expert weights (EDP).
  GradientBytes g = gradient_bytes(s, stage);
  Bytes word = gradient_word(s.model, e);
  double dense = g.dense / word, experts = g.experts / word;
  if (e.zero >= 1) dense /= e.weight_replicas(), experts /= e.expert_replicas();
  return priced(optimizer_operators(dense + experts, s.model, e), s);
}

bool clips_over_dp(const Scenario& s) {
  return s.model.applied_profile().gradient_clipping && s.execution.zero >= 1 &&
         s.execution.weight_replicas() > 1;
}

namespace {

// One layer's attention core forward for one microbatch, counted in full as model FLOP is:
// 4 s q per token over queries q wide (d_model, or heads x head_dim) and the s keys each may
// see (the window's, under one); latent attention's keys and values are of their own widths,
// 2 s heads (qk_head_dim + v_head_dim).
Flop core_forward_flop(const ModelSpec& m, const ExecutionSpec& e) {
  double tokens = static_cast<double>(e.micro_batch) * static_cast<double>(m.seq_len);
  double s = static_cast<double>(m.window > 0 ? std::min<long>(m.window, m.seq_len) : m.seq_len);
  double q = m.head_dim > 0 ? static_cast<double>(m.heads) * m.head_dim
                            : static_cast<double>(m.d_model);
  const LatentAttention& a = m.mla;
  return a.on() ? Flop(2.0 * tokens * s * m.heads * (a.qk_head_dim() + a.v_head_dim))
                : Flop(4.0 * tokens * s * q);
}

// Of the model's layers of `kind`, those whose forward runs again (recompute_layers: the first
// of each chunk).
int recomputed_layers(const ModelSpec& m, const ExecutionSpec& e, LayerKind kind) {
  int n = 0;
  for (int stage = 0; stage < e.pp; ++stage)
    for (int c = 0; c < e.chunks(); ++c) {
      int first = chunk_first_layer(m, e, stage, c);
      for (int l = 0; l < chunk_layers(m, e, stage, c); ++l)
        n += e.recomputes(l) && layer_kind(m, first + l) == kind ? 1 : 0;
    }
  return n;
}

// The GEMMs that selective recomputation's modules other than the attention core run again
// on one GPU (the core's count is core_forward_flop()'s, as Korthikanti et al. count it):
// mla_up_proj's, mlp's and shared_experts', none of them routed, so each GPU's share is 1 /
// (tp x cp) of the layer's.
Flop module_flop(const ModelSpec& m, const ExecutionSpec& e) {
  Flop f;
  ExecutionSpec others = e;
  others.recompute_modules &=
      static_cast<RecomputeModules>(~module_bit(RecomputeModule::core_attn));
  LayerOperators ops = layer_operators(m, others);
  for (const Operators* pass : {&ops.attention.backward, &ops.mlp.backward})
    for (const Operator& op : *pass)
      if (op.recomputed && op.kind == OperatorKind::gemm) f += op.flop;
  return f;
}

} // namespace

StepFlop step_flop(const ModelSpec& m, const ExecutionSpec& e) {
  Flop model = model_flop_per_step(m, e);
  double layer_passes =
      static_cast<double>(e.global_batch) / static_cast<double>(e.micro_batch) * m.stack_layers();
  Flop recomputed;
  // Each kind of layer (layer_kinds()) for its share of the layers.
  for (const auto& [kind, count] : layer_kinds(m)) {
    LayerSpec k = layer_spec(m, e, kind);
    double share = static_cast<double>(count) / m.stack_layers();
    if (e.recompute == Recompute::full) { // the recomputed layers' forward again
      LayerCosts c = layer_costs(k.model, k.exec);
      double again = static_cast<double>(recomputed_layers(m, e, kind)) / m.stack_layers();
      recomputed +=
          (c.attention.flop + c.mlp.flop) * (k.exec.tp_ranks() * k.exec.cp * layer_passes * again);
    }
    if (e.recomputes_module(RecomputeModule::core_attn) && m.kind == ModelKind::transformer)
      recomputed += core_forward_flop(k.model, e) * (layer_passes * share);
    if (e.recompute == Recompute::selective && m.per_operator())
      recomputed +=
          module_flop(k.model, k.exec) * (k.exec.tp_ranks() * k.exec.cp * layer_passes * share);
  }
  return {model, model + recomputed};
}

const CollectiveEfficiency* collective_efficiency(const Scenario& s) {
  const CollectiveEfficiency& curve = s.system.gpu.nvlink_collectives;
  return s.model.applied_profile().nvlink_curve && curve.known() ? &curve : nullptr;
}

} // namespace trainsim
