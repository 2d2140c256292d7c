#include "models/closed_form.hpp"

#include <algorithm>
#include <cstdio>

#include "models/pipeline_path.hpp"
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

// One ring phase (reduce-scatter or all-gather) of n bytes over p ranks: p-1 steps, each at
// least alpha + n/(p B). A pairwise all-to-all has the same p-1 rounds of n/p bytes.
Split ring_phase(Bytes n, int p, Tier t) {
  if (p <= 1) return {};
  double steps = p - 1.0;
  return {Seconds(0), Seconds(0), t.alpha * steps, (n / t.bandwidth) * (steps / p)};
}
Split ring_allreduce(Bytes n, int p, Tier t) { return ring_phase(n, p, t) * 2.0; }

// kernel_time() of workload.hpp, split: the roofline's larger side plus one launch latency.
Split kernel(const KernelCost& k, const GpuSpec& gpu) {
  Seconds c = k.flop / (gpu.peak * gpu.matmul_efficiency), h = k.hbm / gpu.hbm_bandwidth;
  Split s;
  (c >= h ? s.compute : s.hbm) = std::max(c, h);
  s.latency = gpu.kernel_latency;
  return s;
}

struct Tiers {
  Tier tp, dp, edp, ep, pp;
};

// A ring is paced by its slowest neighbour pair, so one pair across nodes puts the whole
// ring on the network. A pairwise all-to-all is not: unless every pair crosses nodes, the
// bound can only assume the cheapest tier.
Tiers tiers_for(const ExecutionSpec& e, const FabricSummary& f) {
  Tier cheapest = tier_for(1, false, f);
  cheapest.bandwidth = std::max(cheapest.bandwidth, f.network_injection_bandwidth);
  Tier all_to_all{f.network_path_latency(), f.network_injection_bandwidth};
  return {tier_for(e.tp, f.tp_crosses_nodes, f), tier_for(e.dp, f.dp_crosses_nodes, f),
          tier_for(e.dp / e.ep, f.edp_crosses_nodes, f), f.ep_crosses_nodes ? all_to_all : cheapest,
          tier_for(2, f.pp_crosses_nodes, f)};
}

struct LayerSplit {
  Split forward, backward;
};

// One layer, one microbatch, as sim/program.cpp replays it: per block (attention, MLP) its
// kernel, then its TP all-reduce (sequence parallelism: an all-gather before and a
// reduce-scatter after, the same two ring phases); an expert block adds an EP all-to-all
// before and after its kernel. Backward runs each kernel twice (input and weight gradients;
// three times with recomputation), each with its own launch, and the same collectives.
// ZeRO-3 gathers the layer's parameters over DP before each pass and reduce-scatters its
// gradients after the backward.
LayerSplit layer_split(const Scenario& s, const LayerCosts& c, const Tiers& t) {
  const GpuSpec& gpu = s.system.gpu;
  const ExecutionSpec& e = s.execution;
  Split kernels = kernel(c.mlp, gpu);
  if (s.model.kind == ModelKind::transformer) kernels += kernel(c.attention, gpu);
  Split comms = ring_allreduce(c.tp_allreduce, e.tp, t.tp) * c.tp_allreduces;
  if (e.ep > 1) comms += ring_phase(c.tp_allreduce * s.model.top_k, e.ep, t.ep) * 2.0;
  Split gather = e.zero >= 3 ? ring_phase(s.model.bytes_per_word * c.params, e.dp, t.dp) : Split{};
  double backward_kernels = e.recompute ? 3.0 : 2.0;
  return {kernels + comms + gather, kernels * backward_kernels + comms + gather * 2.0};
}

// Per stage: forward and backward of one chunk for one microbatch, and the gradient
// reduction after the last backward (ZeRO-1/2: reduce-scatter + all-gather, the same two
// phases as an all-reduce; ZeRO-3 has reduced layer by layer already).
struct StageCost {
  Split forward, backward, dp;
};

std::vector<StageCost> stage_costs(const Scenario& s, const LayerCosts& costs, const Tiers& tiers) {
  const ExecutionSpec& e = s.execution;
  LayerSplit layer = layer_split(s, costs, tiers);
  std::vector<StageCost> stages;
  for (int j = 0; j < e.pp; ++j) {
    double layers = chunk_layers(s.model, e, j);
    Split dp;
    if (e.zero < 3) {
      GradientBytes g = gradient_bytes(s, j);
      // The simulator skips a reduction with nothing to reduce (an MLP whose every weight is an expert).
      if (g.dense > Bytes(0)) dp += ring_allreduce(g.dense, e.dp, tiers.dp);
      if (g.experts > Bytes(0)) dp += ring_allreduce(g.experts, e.dp / e.ep, tiers.edp);
    }
    stages.push_back({layer.forward * layers, layer.backward * layers, dp});
  }
  return stages;
}

// The stage that finishes last once its gradient reduction is done, and how its time splits.
struct Critical {
  int stage = 0;
  Split busy;       ///< its own m x v forward and backward passes
  Seconds bubble;   ///< the rest of its pipeline time: waiting for other stages and sends
  Split dp;
  [[nodiscard]] Seconds total() const { return busy.total() + bubble + dp.total(); }
};

Critical critical_stage(const std::vector<StageCost>& st, const ExecutionSpec& e, Seconds send) {
  int chunks = e.chunks();
  int m = static_cast<int>(e.microbatches());
  PassTimes pass;
  for (const StageCost& c : st) {
    pass.forward.push_back(c.forward.total());
    pass.backward.push_back(c.backward.total());
  }
  std::vector<Seconds> finish = pipeline_finish(e.schedule, m, chunks, pass, send);
  Critical worst;
  for (size_t j = 0; j < st.size(); ++j) {
    Split busy = (st[j].forward + st[j].backward) * (static_cast<double>(m) * chunks);
    Critical c{static_cast<int>(j), busy, std::max(Seconds(0), finish[j] - busy.total()), st[j].dp};
    if (j == 0 || c.total() > worst.total()) worst = c;
  }
  return worst;
}

BoundTerm term(std::string name, Seconds t, std::string why) { return {std::move(name), t, std::move(why)}; }

std::vector<BoundTerm> terms_of(const Critical& c) {
  return {
      term("compute", c.busy.compute, "compute-bound kernels of the critical stage: FLOP / (peak x efficiency)"),
      term("hbm", c.busy.hbm, "HBM-bound kernels of the critical stage: bytes / HBM bandwidth (weights + activations)"),
      term("latency", c.busy.latency, "kernel launches + alpha per collective step (TP, EP, ZeRO-3), m microbatches"),
      term("network", c.busy.network, "TP all-reduces, EP all-to-alls, ZeRO-3 gathers: bytes / bottleneck bandwidth"),
      term("pipeline_bubble", c.bubble, "the critical stage waiting: other stages' passes and the sends between them"),
      term("dp_allreduce", c.dp.total(), "gradient reduction over DP after the last backward (not overlapped)"),
  };
}

} // namespace

BoundResult closed_form_bound(const Scenario& s, const FabricSummary& f) {
  const ExecutionSpec& e = s.execution;
  Tiers tiers = tiers_for(e, f);
  LayerCosts costs = layer_costs(s.model, e);
  Seconds send = e.pp > 1 ? tiers.pp.alpha + costs.pp_activation / tiers.pp.bandwidth : Seconds(0);
  Critical worst = critical_stage(stage_costs(s, costs, tiers), e, send);
  BoundResult r;
  r.terms = terms_of(worst);
  r.step_time = worst.total();
  r.limiting = std::max_element(r.terms.begin(), r.terms.end(),
                                [](const BoundTerm& a, const BoundTerm& b) { return a.time < b.time; })->name;
  r.critical_stage = worst.stage;
  r.microbatches = static_cast<double>(e.microbatches());
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
