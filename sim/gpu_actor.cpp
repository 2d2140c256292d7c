#include "sim/gpu_actor.hpp"

#include <algorithm>
#include <cmath>

#include <simgrid/s4u.hpp>

#include "models/moe_load.hpp"
#include "sim/collective_steps.hpp"
#include "sim/critical_path.hpp"
#include "sim/progress.hpp"
#include "sim/replica_bundle.hpp"
#include "topologies/group_paths.hpp"
#include "sim/traffic.hpp"
#include "sim/waits.hpp"

#include "models/gpu_speed.hpp"
#include "models/step_compute.hpp"

namespace trainsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

int g_payload = 0; // comms model bytes, not content

double now() { return sg4::Engine::get_clock(); }

/// Adds the simulated time `body` takes to `into`.
template <class Body>
void timed(Seconds& into, Body&& body) {
  double start = now();
  body();
  into += Seconds(now() - start);
}

uint64_t whole_bytes(Bytes b) { return static_cast<uint64_t>(std::llround(b.value())); }

} // namespace

StepPlan::StepPlan(const Scenario& s, const Platform& p, Fidelity f)
    : scenario(s), platform(p), fidelity(f), layout(s.execution),
      tp_collective(make_collective(s.execution.tp_collective)),
      dp_collective(make_collective(s.execution.dp_collective)),
      ep_collective(make_collective(s.execution.ep_collective)),
      ep_gather_collective(make_collective(default_collective(CollectiveOp::all_gather))),
      mailboxes(s.execution.gpus()),
      paths(topo::pair_costs(p.topology())), pp_lanes{&mailboxes.channel("ppf"),
                                                      &mailboxes.channel("ppb"),
                                                      &mailboxes.channel("ppf.up"),
                                                      &mailboxes.channel("ppb.up")},
      slowdown(kernel_slowdowns(s)), expert_loads(trainsim::expert_loads(s.model, s.execution)) {
  tp_axes_queue = trainsim::tp_axes_queue(s.execution, p.topology().gpus_per_node());
  // A million microbatches make programs of tens of millions of ops: minutes before the first
  // simulated second, which should not look like a hang.
  Progress built("building the programs", s.execution.pp, "pipeline stages",
                 Progress::Show::count);
  // Fast mode keeps the order of the passes whose collectives leave the node (fast_program).
  for (int stage = 0; stage < s.execution.pp; ++stage) {
    Program fine = stage_program(s, stage, false);
    programs.push_back(f == Fidelity::fast ? fast_program(s, fine, p.topology().gpus_per_node())
                                           : std::move(fine));
    built.add();
  }
  built.finish();
}

namespace {

Group group_of(const Layout& layout, GroupKind kind, int rank, std::string channel,
               const topo::Topology& t) {
  GroupSpan span = layout.span(kind, rank);
  return make_group(span.base, span.stride, span.size, layout.index_in(kind, rank),
                    std::move(channel), t);
}

// A bundled node is one TP block, synchronised after every block's kernels: its leader runs at
// the pace of the slowest GPU it stands for, an own-rail GPU at its own. A folded GPU runs at
// its slowest image's across the replicas, so that the step still meets the slowest GPU of
// all, as the unfolded one does where the replicas run side by side (the replica made of each
// place's slowest image is the slowest there can be).
double slowest_image(const StepPlan& plan, int rank) {
  double slowest = 1.0;
  const RailBundle& b = plan.bundle;
  bool own = b.runs_own(rank);
  int first = own ? rank : rank - b.rail(rank), last_rank = own ? rank + 1 : first + b.rails;
  for (int r = first; r < last_rank; ++r) {
    if (!own && b.runs_own(r)) continue;
    Coords at = plan.layout.coords(r);
    int last = plan.replicas > 1 ? plan.replicas - 1 : at.dp;
    for (at.dp = plan.replicas > 1 ? 0 : at.dp; at.dp <= last; ++at.dp)
      slowest = std::max(slowest, plan.slowdown[static_cast<size_t>(plan.layout.rank(at))]);
  }
  return slowest;
}

} // namespace

GpuActor::GpuActor(const StepPlan& plan, int rank, RankStats& stats, Counters& counters,
                   std::vector<TraceEvent>* trace)
    : plan_(plan), rank_(rank), at_(plan.layout.coords(rank)), stats_(stats), trace_(trace) {
  const topo::Topology& t = plan.platform.topology();
  env_ = {.fidelity = plan.fidelity,
          .mailboxes = &plan.mailboxes,
          .topology = &t,
          .paths = &plan.paths,
          .counters = &counters,
          .traffic = plan.traffic,
          .rank = rank,
          .nvlink = collective_efficiency(plan.scenario),
          .shared_links = plan.shared_links,
          .routing = expert_routing(plan.scenario.model, &plan.expert_loads)};
  const Layout& l = plan.layout;
  tp_ = group_of(l, GroupKind::tp, rank, "tp", t);
  dp_ = group_of(l, GroupKind::dp, rank, "dp", t);
  ep_ = group_of(l, GroupKind::ep, rank, "dp.ep", t);
  edp_ = group_of(l, GroupKind::edp, rank, "dp.edp", t);
  cp_ = group_of(l, GroupKind::cp, rank, "dp.cp", t);
  tp2_ = group_of(l, GroupKind::tp2, rank, "tp2", t);
  etp_ = group_of(l, GroupKind::etp, rank, "etp", t);
  if (plan.replicas > 1) // ep is 1: the EDP group is the DP group
    dp_.bundle_next = edp_.bundle_next = bundle_partner(plan.scenario.execution, rank, t.gpus_per_node());
  for (const Op& op : plan.programs[static_cast<size_t>(at_.pp)])
    if (op.kind == OpKind::recv) recvs_left_[lane_of(op)] += 1;
  if (!plan.slowdown.empty()) slowdown_ = slowest_image(plan, rank);
  if (!plan.expert_loads.empty()) expert_load_ = plan.expert_loads[static_cast<size_t>(ep_.me)];
}

void GpuActor::operator()() {
  if (critical_path::on()) critical_path::start_gpu(rank_);
  for (int lane = 0; lane < 4; ++lane) post_receive(lane);
  for (const Op& op : plan_.programs[static_cast<size_t>(at_.pp)]) {
    execute(op);
    if (plan_.progress != nullptr) plan_.progress->tick();
  }
  stats_.finish = Seconds(now());
  stop_workers();
}

void GpuActor::execute(const Op& op) {
  double start = now();
  switch (op.kind) {
  case OpKind::compute:
  case OpKind::weight_gradients:
    // A GPU runs one kernel at a time and nothing else executes on its host, so a kernel is
    // a wait of its duration: a sleep, exact, and cheaper than an exec, which SimGrid shares
    // out through its CPU model's max-min system.
    timed(stats_[Category::compute], [&] {
      Seconds kernels = op.duration + op.routed * (expert_load_ - 1.0);
      sg4::this_actor::sleep_for(kernels.value() * slowdown_);
    });
    env_.counters->execs += 1;
    return record(op, TraceEvent::Kind::compute, start, now());
  case OpKind::collective:
    timed(category(op.group), [&] { run_collective(op, meeting_of(op)); });
    return record(op, trace_kind(op.group), start, now());
  case OpKind::start_collective:
    return start_collective(op);
  case OpKind::wait_collectives:
    timed(category(op.group), [&] { wait_collectives(op); });
    return record(op, trace_kind(op.group), start, now());
  case OpKind::recv:
    return receive(op);
  case OpKind::send:
    return send(op);
  case OpKind::wait_sends:
    timed(stats_[Category::pp_comm], [&] { wait_sends(); });
    return record(op, TraceEvent::Kind::pp_send_wait, start, now());
  case OpKind::start_copy: {
    auto [from, to] = copies_.start(op.forward, start, op.duration.value());
    return record(op, TraceEvent::Kind::host_copy, from, to);
  }
  case OpKind::wait_copies:
    timed(stats_[Category::offload], [&] {
      if (double until = copies_.end_of(op.forward, op.count); until > now())
        sg4::this_actor::sleep_until(until);
    });
    return record(op, TraceEvent::Kind::offload_wait, start, now());
  }
}

void GpuActor::record(const Op& op, TraceEvent::Kind kind, double start, double end) const {
  if (trace_ == nullptr || end <= start) return;
  trace_->push_back({kind, op.forward, static_cast<std::int16_t>(op.chunk), rank_, op.microbatch,
                     op.layer, op.count, start, end, op.bytes.value()});
}

void GpuActor::run_collective(const Op& op, std::int64_t meeting) {
  if (runs_alone(op)) {
    if (plan_.meetings != nullptr) plan_.meetings->meet(rank_ / plan_.bundle.rails, meeting);
    return sg4::this_actor::sleep_for(time_alone(op).value());
  }
  env_.routing.to_experts = op.to_experts;
  env_.in_rounds = op.in_rounds;
  algorithm(op.group, op.collective).run_repeated(op.collective, group(op.group), op.bytes, op.count, env_);
}

// Rail bundling: the node is a TP block (or the second axis of one), whose GPUs run their
// rings in step, each on its own NVLink links that nothing else uses. A TP axis across nodes
// runs as flows among the nodes' leader GPUs.
bool GpuActor::runs_alone(const Op& op) const {
  int rails = plan_.bundle.rails;
  if (rails <= 1) return false;
  if (op.group == GroupKind::tp2) return true;
  return op.group == GroupKind::tp && plan_.scenario.execution.tp_ranks() == rails;
}

// The k-th collective that runs alone of every GPU of a node is the same program op.
std::int64_t GpuActor::meeting_of(const Op& op) { return runs_alone(op) ? meetings_++ : -1; }

// Its algorithm's time alone, this GPU's sends standing for every member's (turned when the
// traffic is mirrored).
Seconds GpuActor::time_alone(const Op& op) const {
  return algorithm(op.group, op.collective).time_alone(op.collective, group(op.group), op.bytes, op.count, env_);
}

// Background collectives run on their stream's worker, each after the previous one: in order
// on one stream, as NCCL runs them. The DP gradient buckets and the overlapped TP collectives
// have a stream each. One that runs alone is an end time unless it queues behind a job, whose
// end only the worker knows.
void GpuActor::start_collective(const Op& op) {
  Stream& stream = stream_of(op.group);
  const Stream::Entry* last = queue_tail(op.group);
  if (tensor_parallel(op.group)) last_tp_ = &stream;
  bool behind_job = last != nullptr && last->worker != nullptr;
  std::int64_t meeting = meeting_of(op);
  // Where the node's GPUs meet, its end is the last arrival's: a job, not a known time.
  if (runs_alone(op) && !behind_job && plan_.meetings == nullptr)
    return start_alone(op, stream, last);
  double after = last != nullptr && !behind_job ? last->end : 0.0;
  auto kind = tensor_parallel(op.group)    ? TraceEvent::Kind::tp_background
              : op.group == GroupKind::ep ? TraceEvent::Kind::ep_background
                                          : TraceEvent::Kind::dp_background;
  StreamWorker& worker = worker_of(op.group);
  long job = worker.post([this, op, after, kind, meeting, gpu = sg4::this_actor::get_pid(),
                           posted = now()] {
    if (critical_path::on()) critical_path::job_starts(rank_, gpu, posted);
    if (after > now()) sg4::this_actor::sleep_until(after);
    double start = now();
    run_collective(op, meeting);
    record(op, kind, start, now());
    if (critical_path::on()) critical_path::job_ends();
  });
  stream.entries.push_back({&worker, job, 0.0});
}

// Where both TP axes queue together (StepPlan::tp_axes_queue) one worker runs them in the
// order started.
StreamWorker& GpuActor::worker_of(GroupKind group) {
  Stream& stream = plan_.tp_axes_queue && tensor_parallel(group) ? tp_stream_ : stream_of(group);
  if (!stream.worker) stream.worker = std::make_shared<StreamWorker>(sg4::this_actor::get_host());
  return *stream.worker;
}

void GpuActor::stop_workers() {
  for (Stream* stream : {&dp_stream_, &tp_stream_, &tp2_stream_, &ep_stream_})
    if (stream->worker) stream->worker->stop();
}

// A collective that runs alone at the head of its stream or behind others that did: it ends its
// own time after the later of its start and the previous end, so it is its end time, and
// waiting for it is sleeping until then.
void GpuActor::start_alone(const Op& op, Stream& stream, const Stream::Entry* last) {
  double start = std::max(now(), last != nullptr ? last->end : 0.0);
  double end = start + time_alone(op).value();
  stream.entries.push_back({nullptr, 0, end});
  record(op, TraceEvent::Kind::tp_background, start, end);
}

// The entry a collective starts after: the last on its stream, or where both TP axes queue
// (StepPlan::tp_axes_queue) the last either started.
const GpuActor::Stream::Entry* GpuActor::queue_tail(GroupKind group) {
  Stream* stream = &stream_of(group);
  if (plan_.tp_axes_queue && tensor_parallel(group) && last_tp_ != nullptr) stream = last_tp_;
  return stream->entries.empty() ? nullptr : &stream->entries.back();
}

// A wait for all of a TP stream's collectives (the end of an overlapped block) waits for both
// axes'; a wait for the first `count` waits on its group's stream.
void GpuActor::wait_collectives(const Op& op) {
  if (op.count == 0 && tensor_parallel(op.group)) join_stream(tp2_stream_, 0);
  join_stream(stream_of(op.group), op.count);
}

void GpuActor::join_stream(Stream& stream, int count) {
  size_t until = count == 0 ? stream.entries.size()
                            : std::min(static_cast<size_t>(count), stream.entries.size());
  for (; stream.joined < until; ++stream.joined) {
    const Stream::Entry& e = stream.entries[stream.joined];
    if (e.worker != nullptr) {
      double since = now();
      e.worker->wait_for(e.job);
      if (critical_path::on()) critical_path::joined(e.worker->pid(), since);
    } else if (e.end > now())
      sg4::this_actor::sleep_until(e.end);
  }
  if (count != 0) return;
  stream.entries.clear();
  stream.joined = 0;
}

// A receive is posted as soon as the previous one of its direction completed, as Megatron
// posts its next receive with its batched send/receive: a transfer then starts when the
// sender sends and can overlap this stage's compute, instead of waiting for the receiver.
void GpuActor::post_receive(int lane) {
  static int* received = nullptr; // payloads carry no data
  auto d = static_cast<size_t>(lane);
  if (recvs_left_[d] == 0) return;
  posted_recv_[d] = (*plan_.pp_lanes[d])[static_cast<size_t>(rank_)]->get_async<int>(&received);
  if (critical_path::on()) critical_path::posted(*posted_recv_[d], false, "pp");
}

// A transfer's lane: activations (0) or gradients (1), plus 2 where its chunk runs up the
// stages (DualPipeV's second chunk).
int GpuActor::lane_of(const Op& op) const {
  return (op.forward ? 0 : 1) + (plan_.scenario.execution.chunk_reversed(op.chunk) ? 2 : 0);
}

// Time blocked on a pipeline receive is bubble until the data starts moving, transfer after.
void GpuActor::receive(const Op& op) {
  int lane = lane_of(op);
  auto d = static_cast<size_t>(lane);
  if (!posted_recv_[d]) post_receive(lane);
  sg4::CommPtr comm = std::move(posted_recv_[d]);
  posted_recv_[d] = nullptr;
  recvs_left_[d] -= 1;
  double posted = now();
  wait_on(comm, kReceiving);
  double waited = now() - posted;
  post_receive(lane);
  // A receive posted early may have completed before this rank came to wait for it.
  double moving =
      std::clamp(comm->get_finish_time() - std::max(posted, comm->get_start_time()), 0.0, waited);
  stats_[Category::pp_comm] += Seconds(moving);
  stats_[Category::bubble] += Seconds(waited - moving);
  record(op, TraceEvent::Kind::bubble, posted, now() - moving);
  record(op, TraceEvent::Kind::pp_transfer, now() - moving, now());
}

// At most one send per direction is in flight: the next waits for the previous to be
// delivered, like a bounded channel. Unbounded, every actor's pending comms would lengthen
// the activity lists SimGrid scans on each completion.
void GpuActor::send(const Op& op) {
  int lane = lane_of(op);
  sg4::CommPtr& pending = pending_send_[static_cast<size_t>(lane)];
  double start = now();
  if (pending) timed(stats_[Category::pp_comm], [&] { wait_on(pending, kSending); });
  record(op, TraceEvent::Kind::pp_send_wait, start, now());
  bool down = op.forward != plan_.scenario.execution.chunk_reversed(op.chunk);
  int peer = plan_.layout.pipeline_peer(rank_, down);
  const Channel& channel = *plan_.pp_lanes[static_cast<size_t>(lane)];
  auto size = whole_bytes(op.bytes);
  pending = channel[static_cast<size_t>(peer)]->put_async(&g_payload, size);
  if (critical_path::on()) critical_path::posted(*pending, true, "pp", static_cast<double>(size));
  if (plan_.traffic != nullptr) plan_.traffic->add(rank_, peer, op.bytes.value());
  env_.counters->comms += 1;
}

void GpuActor::wait_sends() {
  for (sg4::CommPtr& pending : pending_send_)
    if (pending) {
      wait_on(pending, kSending);
      pending = nullptr;
    }
}

} // namespace trainsim::sim
