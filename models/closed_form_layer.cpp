#include "models/closed_form_layer.hpp"

namespace trainsim::bound {
namespace {

// A pairwise all-to-all of n bytes per rank: p-1 rounds of n/p bytes.
Split all_to_all(Bytes n, int p, const RoundsTier& t) {
  Split s;
  if (p <= 1) return s;
  s.latency = t.alpha;
  s.ep = Seconds(n.value() / p * t.seconds_per_byte);
  return s;
}

// tp_overlap: a pass takes at least its kernels and at least its TP collectives, which run
// beside them on their own stream; what the collectives take beyond the kernels is TP time.
Split beside(const Split& kernels, const Split& tp) {
  Seconds excess = tp.total() - kernels.total();
  if (excess <= Seconds()) return kernels;
  return kernels + tp * (excess / tp.total());
}

Split longer(const Split& a, const Split& b) { return a.total() >= b.total() ? a : b; }

} // namespace

LayerSplit layer_split(const Scenario& s, const LayerCosts& c, const StageFabric& f,
                       TierNames& names) {
  const ExecutionSpec& e = s.execution;
  LayerTimes t = layer_times(s);
  Split forward = kernels(t.mlp.forward) + kernels(t.attention.forward);
  Split backward = kernels(t.mlp.backward) + kernels(t.attention.backward);
  const CollectiveEfficiency* nvlink = collective_efficiency(s);
  CollectiveCost tp = cheapest(e.tp_collective, 2, c.tp_allreduce, e.tp, f.tp, nvlink);
  Split first_axis = split_of(tp, &Split::tp) * c.tp_allreduces;
  // 2-D TP: the MLP's hidden all-reduce over the second axis, once per pass.
  CollectiveCost tp2 = e.tp_2d > 1
                           ? cheapest(e.tp_collective, 2, c.tp2_allreduce, e.tp_2d, f.tp2, nvlink)
                           : CollectiveCost{};
  Split second_axis = split_of(tp2, &Split::tp);
  Split tp_comms = first_axis + second_axis;
  Split comms; // the pass's collectives other than TP's
  if (e.ep > 1) comms += all_to_all(c.tp_allreduce * s.model.top_k, e.ep, f.ep) * 2.0;
  int replicas = e.weight_replicas();
  CollectiveCost zero =
      cheapest(e.dp_collective, 1, s.model.bytes_per_word * c.params, replicas, f.dp, nvlink);
  CollectiveCost zero_reduce =
      cheapest(e.dp_collective, 1, gradient_word(s.model, e) * c.params, replicas, f.dp, nvlink);
  CollectiveCost kv =
      e.cp > 1 ? cheapest(e.dp_collective, 1, c.cp_kv, e.cp, f.cp, nvlink) : CollectiveCost{};
  Split gather_kv = split_of(kv, &Split::cp);
  comms += gather_kv;
  Split gather = e.zero >= 3 ? split_of(zero, &Split::zero) : Split{};
  Split reduce = e.zero >= 3 ? split_of(zero_reduce, &Split::zero) : Split{};
  names.tp = tp.transfer * c.tp_allreduces >= tp2.transfer ? tp.tier : tp2.tier;
  names.ep = f.ep.name, names.zero = zero.tier, names.cp = kv.tier;
  // Full recomputation runs the forward's collectives again (models/step_program.cpp); sequence
  // parallelism gathers each block's input once more in the backward.
  bool full = e.recompute == Recompute::full;
  Split again = full ? comms : Split{};
  Split regather =
      e.sequence_parallel
          ? split_of(cheapest(e.tp_collective, 1, c.tp_allreduce, e.tp, f.tp, nvlink), &Split::tp) *
                c.tp_allreduces
          : Split{};
  Split tp_backward = tp_comms + (full ? tp_comms : Split{}) + regather;
  if (e.tp_overlap) {
    // Each axis on its own stream (models/layout.hpp: tp_axes_queue): the pass takes at least
    // the longer axis's collectives.
    double again_factor = full ? 2.0 : 1.0;
    Split backward_first = first_axis * again_factor + regather;
    Split backward_second = second_axis * again_factor;
    bool apart = e.tp_2d > 1 && !f.tp_axes_queue;
    Split stream_forward = apart ? longer(first_axis, second_axis) : tp_comms;
    Split stream_backward = apart ? longer(backward_first, backward_second) : tp_backward;
    return {beside(forward, stream_forward) + comms + gather,
            beside(backward, stream_backward) + comms + gather_kv + again + gather + reduce};
  }
  return {forward + tp_comms + comms + gather,
          backward + tp_backward + comms + gather_kv + again + gather + reduce};
}

} // namespace trainsim::bound
