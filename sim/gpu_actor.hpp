// One GPU's training step: its pipeline stage's forward and backward passes per microbatch,
// layer by layer (kernels and tensor-parallel all-reduces), pipeline sends and receives, and
// the data-parallel gradient all-reduce at the end.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "models/schedule.hpp"
#include "models/workload.hpp"
#include "sim/collectives.hpp"
#include "sim/layout.hpp"
#include "sim/platform.hpp"
#include "sim/stats.hpp"

#include <simgrid/s4u/Comm.hpp>

namespace trainsim::sim {

/// Read-only state shared by every GPU actor of one simulation.
struct StepPlan {
  StepPlan(const Scenario& scenario, const Platform& platform, Fidelity fidelity);

  const Scenario& scenario;
  const Platform& platform;
  Fidelity fidelity;
  Layout layout;
  LayerCosts costs;
  Seconds attention_time; ///< one forward attention kernel
  Seconds mlp_time;       ///< one forward MLP kernel
  std::unique_ptr<CollectiveAlgorithm> collective;
  std::vector<std::vector<PipelineOp>> order_by_stage;
  mutable Mailboxes mailboxes; ///< filled lazily as channels are first used
  const std::vector<simgrid::s4u::Mailbox*>& pp_forward;
  const std::vector<simgrid::s4u::Mailbox*>& pp_backward;
};

class GpuActor {
public:
  GpuActor(const StepPlan& plan, int rank, RankStats& stats, Counters& counters);
  void operator()();

private:
  void forward(int microbatch);
  void backward(int microbatch);
  void layer_pass(bool forward);
  void kernel(Seconds duration);
  void tp_all_reduce();
  void receive(const std::vector<simgrid::s4u::Mailbox*>& channel);
  void send(int to_rank, const std::vector<simgrid::s4u::Mailbox*>& channel);
  void finish_sends();

  const StepPlan& plan_;
  int rank_;
  Coords at_;
  int layers_;
  RankStats& stats_;
  Counters& counters_;
  CollectiveEnv env_;
  Group tp_;
  Group dp_;
  std::vector<simgrid::s4u::CommPtr> pending_sends_;
};

} // namespace trainsim::sim
