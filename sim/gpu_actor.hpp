// One GPU's training step: the actor interprets its pipeline stage's program (sim/program):
// kernels, collectives over its TP/DP/EP groups, pipeline sends and receives, and background
// gradient collectives, accounting every simulated second to one category.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

#include "sim/collectives.hpp"
#include "models/layout.hpp"
#include "sim/platform.hpp"
#include "models/step_program.hpp"
#include "sim/stats.hpp"
#include "sim/host_copies.hpp"
#include "sim/node_meetings.hpp"
#include "sim/rail_bundle.hpp"
#include "sim/stream_worker.hpp"

namespace trainsim::sim {

class Progress;

/// Read-only state shared by every GPU actor of one simulation.
struct StepPlan {
  StepPlan(const Scenario& scenario, const Platform& platform, Fidelity fidelity);

  const Scenario& scenario;
  const Platform& platform;
  Fidelity fidelity;
  Layout layout;
  std::vector<Program> programs; ///< by pipeline stage
  std::unique_ptr<CollectiveAlgorithm> tp_collective, dp_collective, ep_collective;
  /// The EP group's gathers and reductions (the all-gather dispatcher): NCCL's ring.
  std::unique_ptr<CollectiveAlgorithm> ep_gather_collective;
  mutable Mailboxes mailboxes; ///< filled lazily as channels are first used
  mutable GroupPaths paths;    ///< each ring's neighbour pairs, computed on first use
  /// Pipeline transfers, by lane (lane_of): activations and gradients, each down the stages
  /// (stage s to s + 1 forward) or, for DualPipeV's second chunk, up them. A stage in its V
  /// receives activations from both neighbours, so each way has a mailbox of its own.
  std::array<const Channel*, 4> pp_lanes;
  Progress* progress = nullptr;     ///< optional
  /// Which GPUs of a node run the step, and for which (sim/rail_bundle.hpp).
  RailBundle bundle;
  /// Where a node's leader and own-rail GPUs meet at its TP collectives; null without own rails.
  NodeMeetings* meetings = nullptr;
  /// DP replicas that replica 0 runs the step for (sim/replica_bundle.hpp); 1: every replica runs.
  int replicas = 1;
  bool tp_axes_queue = false;       ///< models/layout.hpp: tp_axes_queue()
  std::vector<bool> traced;         ///< by rank: record its ops as trace events
  /// By rank, how much longer its kernels take than the preset's figures (models/gpu_speed.hpp);
  /// empty: none does.
  std::vector<double> slowdown;
  /// By EP member position, its routed rows over the balanced share (models/moe_load.hpp);
  /// empty: balanced. A bundled node's GPUs share their position, so bundling stays exact.
  std::vector<double> expert_loads;
  class Traffic* traffic = nullptr; ///< optional: bytes sent, for link statistics
  /// false: every link is a fat pipe (SimOptions::shared_links), which the collectives that
  /// run alone price as the platform runs flows.
  bool shared_links = true;
};

class GpuActor {
public:
  /// `trace`, when given, receives one event per op this rank runs.
  GpuActor(const StepPlan& plan, int rank, RankStats& stats, Counters& counters,
           std::vector<TraceEvent>* trace = nullptr);
  void operator()();

private:
  void execute(const Op& op);
  /// `meeting`: the op's index among this GPU's collectives that run alone, -1 for others.
  void run_collective(const Op& op, std::int64_t meeting = -1);
  [[nodiscard]] std::int64_t meeting_of(const Op& op);
  [[nodiscard]] static TraceEvent::Kind trace_kind(GroupKind group);
  [[nodiscard]] bool runs_alone(const Op& op) const;
  [[nodiscard]] Seconds time_alone(const Op& op) const;
  void start_collective(const Op& op);
  void wait_collectives(const Op& op);
  void receive(const Op& op);
  void post_receive(int lane);
  [[nodiscard]] int lane_of(const Op& op) const;
  void send(const Op& op);
  void wait_sends();
  [[nodiscard]] const Group& group(GroupKind kind) const;
  [[nodiscard]] const CollectiveAlgorithm& algorithm(GroupKind kind, CollectiveOp op) const;
  [[nodiscard]] Seconds& category(GroupKind kind);
  void record(const Op& op, TraceEvent::Kind kind, double start, double end) const;

  const StepPlan& plan_;
  int rank_;
  Coords at_;
  double slowdown_ = 1.0; ///< its kernels' duration over the preset's (models/gpu_speed.hpp)
  double expert_load_ = 1.0; ///< its routed kernels' duration over the program's (expert_loads)
  std::int64_t meetings_ = 0; ///< collectives that ran alone so far (NodeMeetings)
  RankStats& stats_;
  CollectiveEnv env_;
  Group tp_, dp_, ep_, edp_, cp_, tp2_, etp_;
  simgrid::s4u::CommPtr pending_send_[4]; ///< the last send of each lane (StepPlan::pp_lanes)
  simgrid::s4u::CommPtr posted_recv_[4];  ///< the next receive of each lane, posted early
  int recvs_left_[4] = {0, 0, 0, 0};      ///< receives of each lane still to come
  /// Background collectives of one stream, in the order started, the first `joined` waited
  /// for: each a job of a stream worker, or for a TP collective that runs alone (rail
  /// bundling) and queues behind no job, its end time (worker null). The worker is created on
  /// the stream's first job; where both TP axes queue together they share the first axis's.
  struct Stream {
    struct Entry {
      StreamWorker* worker = nullptr;
      long job = 0;
      double end = 0;
    };
    std::vector<Entry> entries;
    size_t joined = 0;
    std::shared_ptr<StreamWorker> worker; // shared: the actor object is copied before it runs
  };
  Stream dp_stream_, tp_stream_, tp2_stream_, ep_stream_;
  HostCopies copies_; ///< activation offloading's copy streams
  /// Each TP axis has its stream, and the expert all-to-alls under ep_overlap theirs (Megatron-
  /// Core's combined 1F1B runs them on a communication stream of their own); the DP and EDP
  /// gradient buckets share the DP stream.
  Stream& stream_of(GroupKind group) {
    if (group == GroupKind::tp2) return tp2_stream_;
    if (group == GroupKind::ep) return ep_stream_;
    return group == GroupKind::tp ? tp_stream_ : dp_stream_;
  }
  void join_stream(Stream& stream, int count);
  Stream* last_tp_ = nullptr; ///< the TP stream of the last TP collective started
  [[nodiscard]] const Stream::Entry* queue_tail(GroupKind group);
  void start_alone(const Op& op, Stream& stream, const Stream::Entry* last);
  [[nodiscard]] StreamWorker& worker_of(GroupKind group);
  void stop_workers();
  std::vector<TraceEvent>* trace_;
};

} // namespace trainsim::sim
