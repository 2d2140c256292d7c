// The scenario bound's price of one stage (models/closed_form.cpp): the time of serial
// operations split by the resource that sets each one's length, read from the stage's step
// program. Internal to models/.
#pragma once

#include <string>
#include <vector>

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

// One stage's step priced from its program (models/step_program.hpp), op by op and without
// contention: the bound's reading of the same ops the simulator replays.
//
// - A pass is the ops of one microbatch's forward or backward of one chunk. The main stream's
//   kernels and collectives add up; a TP stream's collectives (tp_overlap) run beside the
//   main stream up to the stream's full wait, so each such segment takes the longer of the
//   two (each TP axis on a stream of its own unless StageFabric::tp_axes_queue). Collectives
//   take the stage's cheapest group.
// - A pipeline receive's TP all-gather (scatter/gather) belongs to the transfer: `receive`.
// - DP-stream collectives started before the first pass run beside the passes (`beside`);
//   those started after the stage's last kernel, and the collectives after the passes, add
//   to the step (`after`); the buckets between overlap the passes and count nothing. These
//   take the stage's dearest group: the step waits for all of them.
// - The kernels after the passes are the optimizer's; kernels that run once a step inside
//   the passes (Op::per_step) are `once`, not part of any pass.
//
// A kernel op carries its time only; it is split into compute, HBM and launch time in the
// proportions of the kernels it stands for (the layers', the vocabulary's, the optimizer's:
// models/step_compute.hpp), which only names what limits the bound.
struct StagePrice {
  std::vector<Split> forward, backward; ///< by chunk: one microbatch's pass
  Seconds transfer;                     ///< a pipeline transfer to this stage, as it arrives
  Split receive;                        ///< what completes it on this stage (scatter/gather)
  Split beside, after, optimizer;
  Split once; ///< kernels of the passes that run once a step (Op::per_step: FP8 weight casts)
  TierNames names;
};

StagePrice price_stage(const Scenario& s, int stage, const StageFabric& f);

} // namespace trainsim::bound
