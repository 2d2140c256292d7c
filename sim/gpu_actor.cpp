#include "sim/gpu_actor.hpp"

#include <algorithm>
#include <cmath>

#include <simgrid/s4u.hpp>

namespace trainsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

int g_payload = 0;

double now() { return sg4::Engine::get_clock(); }

/// Adds the simulated time `body` takes to `into`.
template <class Body>
void timed(Seconds& into, Body&& body) {
  double start = now();
  body();
  into += Seconds(now() - start);
}

} // namespace

StepPlan::StepPlan(const Scenario& s, const Platform& p, Fidelity f)
    : scenario(s), platform(p), fidelity(f), layout(s.execution), costs(layer_costs(s.model, s.execution)),
      attention_time(s.model.kind == ModelKind::transformer ? kernel_time(costs.attention, s.system.gpu) : Seconds()),
      mlp_time(kernel_time(costs.mlp, s.system.gpu)), collective(make_collective(s.execution.collective)),
      mailboxes(s.execution.gpus()), pp_forward(mailboxes.channel("ppf")), pp_backward(mailboxes.channel("ppb")) {
  const ExecutionSpec& e = s.execution;
  for (int stage = 0; stage < e.pp; ++stage)
    order_by_stage.push_back(pipeline_order(e.schedule, stage, e.pp, static_cast<int>(e.microbatches())));
}

GpuActor::GpuActor(const StepPlan& plan, int rank, RankStats& stats, Counters& counters)
    : plan_(plan), rank_(rank), at_(plan.layout.coords(rank)),
      layers_(stage_layers(plan.scenario.model.layers, plan.scenario.execution.pp, at_.pp)), stats_(stats),
      counters_(counters) {
  const ExecutionSpec& e = plan.scenario.execution;
  const topo::Topology& topology = plan.platform.topology();
  env_ = {plan.fidelity, &plan.mailboxes, &topology, &counters};
  tp_ = make_group(rank - at_.tp, 1, e.tp, at_.tp, "tp", topology);
  dp_ = make_group(rank - at_.dp * e.tp, e.tp, e.dp, at_.dp, "dp", topology);
}

void GpuActor::operator()() {
  for (const PipelineOp& op : plan_.order_by_stage[static_cast<size_t>(at_.pp)])
    op.forward ? forward(op.microbatch) : backward(op.microbatch);
  finish_sends();
  Bytes gradients = plan_.scenario.model.bytes_per_word * (plan_.costs.params * layers_);
  timed(stats_.dp, [&] { plan_.collective->run(CollectiveOp::all_reduce, dp_, gradients, env_); });
  stats_.finish = Seconds(now());
}

void GpuActor::forward(int /*microbatch*/) {
  if (at_.pp > 0) receive(plan_.pp_forward);
  for (int l = 0; l < layers_; ++l) layer_pass(true);
  if (at_.pp + 1 < plan_.layout.pp()) send(plan_.layout.rank({at_.tp, at_.dp, at_.pp + 1}), plan_.pp_forward);
}

void GpuActor::backward(int /*microbatch*/) {
  if (at_.pp + 1 < plan_.layout.pp()) receive(plan_.pp_backward);
  for (int l = 0; l < layers_; ++l) layer_pass(false);
  if (at_.pp > 0) send(plan_.layout.rank({at_.tp, at_.dp, at_.pp - 1}), plan_.pp_backward);
}

// Forward: [attention, all-reduce, MLP, all-reduce]; backward runs them in reverse order at
// twice the cost (gradients for inputs and for weights). MLP-only blocks skip attention.
void GpuActor::layer_pass(bool forward) {
  double scale = forward ? 1.0 : 2.0;
  bool attention = plan_.scenario.model.kind == ModelKind::transformer;
  if (forward && attention) {
    kernel(plan_.attention_time * scale);
    tp_all_reduce();
  }
  kernel(plan_.mlp_time * scale);
  tp_all_reduce();
  if (!forward && attention) {
    kernel(plan_.attention_time * scale);
    tp_all_reduce();
  }
}

void GpuActor::kernel(Seconds duration) {
  timed(stats_.compute, [&] { sg4::this_actor::execute(duration.value() * plan_.platform.speed()); });
  counters_.execs += 1;
}

void GpuActor::tp_all_reduce() {
  if (tp_.size < 2) return;
  timed(stats_.tp, [&] { plan_.collective->run(CollectiveOp::all_reduce, tp_, plan_.costs.tp_allreduce, env_); });
}

// Time blocked on a pipeline receive is bubble until the data starts moving, transfer after.
void GpuActor::receive(const std::vector<sg4::Mailbox*>& channel) {
  int* received = nullptr;
  double posted = now();
  sg4::CommPtr comm = channel[static_cast<size_t>(rank_)]->get_async<int>(&received);
  comm->wait();
  double waited = now() - posted;
  double moving = std::min(waited, comm->get_finish_time() - std::max(posted, comm->get_start_time()));
  stats_.pp += Seconds(moving);
  stats_.bubble += Seconds(waited - moving);
}

void GpuActor::send(int to_rank, const std::vector<sg4::Mailbox*>& channel) {
  auto* box = channel[static_cast<size_t>(to_rank)];
  pending_sends_.push_back(box->put_async(&g_payload, static_cast<uint64_t>(std::llround(plan_.costs.pp_activation.value()))));
  counters_.comms += 1;
}

void GpuActor::finish_sends() {
  timed(stats_.pp, [&] { sg4::Comm::wait_all(pending_sends_); });
  pending_sends_.clear();
}

} // namespace trainsim::sim
