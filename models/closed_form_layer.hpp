// The scenario bound's price of one layer (models/closed_form.cpp): the time of serial
// operations split by the resource that sets each one's length, and one layer's forward and
// backward for one microbatch as models/step_program.cpp replays them. Internal to models/.
#pragma once

#include <string>

#include "models/collective_cost.hpp"
#include "models/fabric.hpp"
#include "models/scenario.hpp"
#include "models/step_compute.hpp"
#include "models/workload.hpp"

namespace trainsim::bound {

// Time of a group of serial operations, split by the resource that sets each one's length,
// and network time by the group whose traffic it is. Kept split so that the bound can name
// what limits it; total() is what adds up.
struct Split {
  Seconds compute, hbm, latency;
  Seconds tp, ep, zero, dp, edp, cp; ///< bytes / bandwidth of each group's collectives
  [[nodiscard]] Seconds network() const { return tp + ep + zero + dp + edp + cp; }
  [[nodiscard]] Seconds total() const { return compute + hbm + latency + network(); }
  Split& operator+=(const Split& o) {
    compute += o.compute, hbm += o.hbm, latency += o.latency;
    tp += o.tp, ep += o.ep, zero += o.zero, dp += o.dp, edp += o.edp, cp += o.cp;
    return *this;
  }
};
inline Split operator*(Split s, double k) {
  return {s.compute * k, s.hbm * k, s.latency * k, s.tp * k, s.ep * k,
          s.zero * k,    s.dp * k,  s.edp * k,     s.cp * k};
}
inline Split operator+(Split a, const Split& b) { return a += b; }

// A collective's price (models/collective_cost.hpp) as a Split: `into` picks the group's
// network field.
inline Split split_of(const CollectiveCost& c, Seconds Split::*into) {
  Split s;
  s.latency = c.latency;
  s.*into = c.transfer;
  return s;
}

// Kernel time (models/step_compute.hpp, which the simulator replays too) as a Split: what the
// compute-bound and the HBM-bound kernels take, and their launches.
inline Split kernels(const KernelTime& k) {
  Split s;
  s.compute = k.compute, s.hbm = k.hbm, s.latency = k.overhead;
  return s;
}

// The tier each group's traffic was priced at, for the bound's explanation.
struct TierNames {
  std::string tp, ep, zero, dp, edp, cp;
};

struct LayerSplit {
  Split forward, backward;
};

// One layer, one microbatch, as models/step_program.cpp replays it: per block (attention, MLP) its
// kernels, then its TP all-reduce (sequence parallelism: an all-gather before and a
// reduce-scatter after, the same two phases; 2-D TP: the MLP's hidden all-reduce over the
// second axis between its matmuls too); an expert block adds an EP all-to-all before
// and after its kernels. Backward runs the blocks' gradient kernels and the same collectives;
// full recomputation first runs the forward again, its collectives too. ZeRO-3 gathers the
// layer's parameters over DP before each pass and reduce-scatters its gradients after the
// backward. Context parallelism all-gathers the keys and values before the attention core in
// both passes and reduce-scatters their gradients after the backward's. Collectives in the
// passes take the stage's cheapest group.
LayerSplit layer_split(const Scenario& s, const LayerCosts& c, const StageFabric& f,
                       TierNames& names);

} // namespace trainsim::bound
