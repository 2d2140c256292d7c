#include "models/closed_form.hpp"

#include <algorithm>
#include <cstdio>

#include "models/workload.hpp"

namespace trainsim {
namespace {

// Time of a group of serial operations, split by the resource that sets each one's length.
// Kept split so that the bound can name what limits it; total() is what adds up.
struct Split {
  Seconds compute, hbm, latency, network;
  [[nodiscard]] Seconds total() const { return compute + hbm + latency + network; }
  Split& operator+=(const Split& o) {
    compute += o.compute, hbm += o.hbm, latency += o.latency, network += o.network;
    return *this;
  }
};
Split operator*(Split s, double k) { return {s.compute * k, s.hbm * k, s.latency * k, s.network * k}; }
Split operator+(Split a, const Split& b) { return a += b; }

// The cheapest link a pair in a group could use: NVLink when the whole group can sit inside
// one domain (and the caller has not said otherwise), else the network.
struct Tier {
  Seconds alpha;
  BytesPerSecond bandwidth;
};
Tier tier_for(int group, bool crosses_nodes, const FabricSummary& f) {
  Tier net{f.network_path_latency(), f.network_bandwidth};
  if (crosses_nodes || group > f.nvlink_domain) return net;
  return {std::min(net.alpha, f.nvlink_path_latency()), std::max(net.bandwidth, f.nvlink_bandwidth)};
}

// Ring all-reduce of n bytes over p ranks: 2(p-1) steps, each at least alpha + n/(p B).
Split ring_allreduce(Bytes n, int p, Tier t) {
  if (p <= 1) return {};
  double steps = 2.0 * (p - 1);
  return {Seconds(0), Seconds(0), t.alpha * steps, (n / t.bandwidth) * (steps / p)};
}

// kernel_time() of workload.hpp, split: the roofline's larger side plus one launch latency.
Split kernel(const KernelCost& k, const GpuSpec& gpu) {
  Seconds c = k.flop / (gpu.peak * gpu.matmul_efficiency), h = k.hbm / gpu.hbm_bandwidth;
  Split s;
  (c >= h ? s.compute : s.hbm) = std::max(c, h);
  s.latency = gpu.kernel_latency;
  return s;
}

KernelCost twice(KernelCost k) { return {k.flop * 2.0, k.hbm * 2.0}; }

struct LayerSplit {
  Split forward, backward;
};

// One layer, one microbatch: [attention, all-reduce, MLP, all-reduce] (MLP blocks: [MLP,
// all-reduce]); backward replays it with twice the FLOP and HBM bytes, same all-reduces.
LayerSplit layer_split(const Scenario& s, const LayerCosts& c, Tier tp_tier) {
  const GpuSpec& gpu = s.system.gpu;
  Split ar = ring_allreduce(c.tp_allreduce, s.execution.tp, tp_tier) * c.tp_allreduces;
  LayerSplit l;
  l.forward = kernel(c.attention, gpu) * (s.model.kind == ModelKind::transformer ? 1.0 : 0.0);
  l.forward += kernel(c.mlp, gpu);
  l.forward += ar;
  l.backward = kernel(twice(c.attention), gpu) * (s.model.kind == ModelKind::transformer ? 1.0 : 0.0);
  l.backward += kernel(twice(c.mlp), gpu);
  l.backward += ar;
  return l;
}

// Per stage: forward and backward of one microbatch, and the DP all-reduce at the end.
struct StageCost {
  Split forward, backward, dp;
};

std::vector<StageCost> stage_costs(const Scenario& s, const FabricSummary& f) {
  const ExecutionSpec& e = s.execution;
  LayerCosts c = layer_costs(s.model, e);
  LayerSplit layer = layer_split(s, c, tier_for(e.tp, f.tp_crosses_nodes, f));
  Tier dp_tier = tier_for(e.dp, f.dp_crosses_nodes, f);
  std::vector<StageCost> stages;
  // With experts spread over ep ranks, expert gradients are reduced among the dp / ep ranks
  // holding the same experts; the rest (attention) over all of DP.
  double d = static_cast<double>(s.model.d_model);
  double dense_params = e.ep == 1 ? c.params : (s.model.kind == ModelKind::transformer ? 4.0 * d * d / e.tp : 0.0);
  for (int j = 0; j < e.pp; ++j) {
    double layers = stage_layers(s.model.layers, e.pp, j);
    Bytes dense = s.model.bytes_per_word * (dense_params * layers);
    Bytes experts = s.model.bytes_per_word * ((c.params - dense_params) * layers);
    Split dp = ring_allreduce(dense, e.dp, dp_tier);
    if (e.ep > 1) dp += ring_allreduce(experts, e.dp / e.ep, dp_tier);
    stages.push_back({layer.forward * layers, layer.backward * layers, dp});
  }
  return stages;
}

// One candidate chain of necessary work; the bound is the longest candidate.
struct Chain {
  Split busy;        ///< the critical stage's own m forward + m backward passes
  Seconds fill;      ///< other stages' work and point-to-point sends the chain must wait for
  Split dp;          ///< the DP all-reduce ending the step
  int stage = 0;
  [[nodiscard]] Seconds total() const { return busy.total() + fill + dp.total(); }
};

// For stage j: microbatch data reaches it only after the forward of stages 0..j-1 and j
// sends. It then works at least m(F_j + B_j); and its first backward waits for one
// microbatch's round trip through the later stages (S_j), after which m backwards remain:
// F_j + S_j + m B_j. Its last backward still flows back through stages j-1..0 (j sends)
// before stage 0 can start its DP all-reduce; or stage j starts its own.
// With v interleaved chunks per GPU a microbatch needs only one chunk (1/v) of each earlier
// stage's pass before it reaches stage j, so every fill term is divided by v.
std::vector<Chain> chains(const std::vector<StageCost>& st, double m, Seconds send, double v) {
  size_t pp = st.size();
  std::vector<Seconds> suffix(pp + 1); // S_j: round trip through stages j+1.. with 2 sends per hop
  for (size_t j = pp - 1; j-- > 0;)
    suffix[j] = suffix[j + 1] + (st[j + 1].forward.total() + st[j + 1].backward.total()) / v + send * 2.0;
  std::vector<Chain> out;
  Seconds fwd_prefix, bwd_prefix;
  for (size_t j = 0; j < pp; ++j) {
    Split work = (st[j].forward + st[j].backward) * m, round_trip = st[j].forward * (1.0 / v) + st[j].backward * m;
    Seconds hops = send * static_cast<double>(j), back = bwd_prefix + hops;
    int stage = static_cast<int>(j);
    for (const auto& [busy, wait] : {std::pair{work, Seconds(0)}, std::pair{round_trip, suffix[j]}}) {
      out.push_back({busy, fwd_prefix + hops + wait + back, st[0].dp, stage});
      out.push_back({busy, fwd_prefix + hops + wait, st[j].dp, stage});
    }
    fwd_prefix += st[j].forward.total() / v;
    bwd_prefix += st[j].backward.total() / v;
  }
  return out;
}

BoundTerm term(std::string name, Seconds t, std::string why) { return {std::move(name), t, std::move(why)}; }

std::vector<BoundTerm> terms_of(const Chain& c) {
  return {
      term("compute", c.busy.compute, "compute-bound kernels of the critical stage: FLOP / (peak x efficiency)"),
      term("hbm", c.busy.hbm, "HBM-bound kernels of the critical stage: bytes / HBM bandwidth (weights + activations)"),
      term("latency", c.busy.latency, "kernel launches + 2(p-1) alpha per TP ring all-reduce, m microbatches"),
      term("tp_network", c.busy.network, "TP ring all-reduces: 2(p-1)/p x bytes / bottleneck bandwidth"),
      term("pipeline_bubble", c.fill, "fill and drain: other stages' passes the critical stage waits for + sends"),
      term("dp_allreduce", c.dp.total(), "gradient ring all-reduce over DP after the last backward (not overlapped)"),
  };
}

} // namespace

BoundResult closed_form_bound(const Scenario& s, const FabricSummary& f) {
  const ExecutionSpec& e = s.execution;
  LayerCosts c = layer_costs(s.model, e);
  Tier pp_tier = tier_for(2, f.pp_crosses_nodes, f);
  Seconds send = e.pp > 1 ? pp_tier.alpha + c.pp_activation / pp_tier.bandwidth : Seconds(0);
  double m = static_cast<double>(e.microbatches());
  double v = e.schedule == PipelineSchedule::interleaved ? e.interleave : 1.0;
  std::vector<Chain> all = chains(stage_costs(s, f), m, send, v);
  const Chain& worst = *std::max_element(all.begin(), all.end(),
                                         [](const Chain& a, const Chain& b) { return a.total() < b.total(); });
  BoundResult r;
  r.terms = terms_of(worst);
  r.step_time = worst.total();
  r.limiting = std::max_element(r.terms.begin(), r.terms.end(),
                                [](const BoundTerm& a, const BoundTerm& b) { return a.time < b.time; })->name;
  r.critical_stage = worst.stage;
  r.microbatches = m;
  r.model_flop = model_flop_per_step(s.model, e);
  double peak_per_step = (s.system.gpu.peak * r.step_time).value() * e.gpus();
  r.mfu_upper_bound = r.step_time.value() > 0 ? r.model_flop.value() / peak_per_step : 0.0;
  return r;
}

std::string format_bound(const BoundResult& b) {
  std::string out;
  char line[256];
  for (const BoundTerm& t : b.terms) {
    std::snprintf(line, sizeof line, "  %-16s %12s  %s\n", t.name.c_str(), format(t.time).c_str(),
                  t.explanation.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line,
                "step time >= %s (limiting: %s; critical stage %d, %g microbatches; MFU <= %.1f%%)\n",
                format(b.step_time).c_str(), b.limiting.c_str(), b.critical_stage, b.microbatches,
                100.0 * b.mfu_upper_bound);
  return out + line;
}

} // namespace trainsim
