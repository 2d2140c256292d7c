#include "sim/collective_steps.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/critical_path.hpp"
#include "sim/traffic.hpp"

#include "models/check.hpp"
#include "models/collective_cost.hpp"
#include "models/step_program.hpp"

#include "topologies/topology.hpp"

namespace trainsim::sim::detail {
namespace {

namespace sg4 = simgrid::s4u;

constexpr int kNcclSteps = 8; // NCCL_STEPS, src/include/device.h

// Payloads carry no data: a comm models its bytes, not their content.
int g_payload = 0;
// Where get_async stores the received payload pointer; nothing reads it.
int* g_received = nullptr;

/// The rank this one sends to on ring channel `c`: the group's next (its stand-in under replica
/// folding) with one channel, else the channel's turned ring's next member.
int next_on(const RingView& ring, int c) {
  return ring.channels == 1 ? ring.next
                            : ring.members.member(ring.members.ring_next(ring.index, c));
}

/// Sends `bytes` to the next rank and receives as much from the previous one: on several
/// channels, a share to each channel's next rank and as many receives. The receives match
/// any sender: a comm's size and route are its sender's, so which receive it meets does not
/// change the time.
void ring_exchange(const RingView& ring, double bytes, const CollectiveEnv& env, double rate = 0) {
  if (ring.channels == 1) {
    sg4::CommPtr out = send(*ring.inboxes, ring.next, bytes, env, rate);
    sg4::CommPtr in = receive(*ring.inboxes, ring.me);
    wait_on(in, kReceiving);
    wait_on(out, kSending);
    return;
  }
  std::vector<sg4::CommPtr> outs, ins;
  for (int c = 0; c < ring.channels; ++c) {
    outs.push_back(send(*ring.inboxes, next_on(ring, c), bytes / ring.channels, env, rate));
    ins.push_back(receive(*ring.inboxes, ring.me));
  }
  for (const sg4::CommPtr& in : ins) wait_on(in, kReceiving);
  for (const sg4::CommPtr& out : outs) wait_on(out, kSending);
}

// Fine mode's rounds. NCCL's ring writes each step into a buffer slot its receiver freed
// earlier (NCCL_STEPS slots per channel), so a sender waits for the data it forwards, never
// for its receiver to reach the same step. A mailbox send that had to complete before the
// sender's next round did hold it there: a ring whose members arrived a few microseconds apart
// (the GPUs' speed spread) then paid each round's pair time twice over, for the rest of the
// step. So a rank waits for its receives round by round, and for a send only when its slot
// comes round again, NCCL_STEPS rounds later (the rest at the end); each send still moves only
// once its round's receive is posted. The slots also bound the sends in flight: SimGrid's
// CommImpl::finish() scans a list of them, and with every send of a 510-round ring in flight
// (validate's random scenario 119) fine mode took 173 CPU s, 21 s with 8. Each ring channel
// has its own inboxes (Channel::lane), so a receive meets its own predecessor's message of its
// own round: with one inbox for all channels, a rank that ran a collective ahead could have
// its message taken by another channel's receive, and the sends left waiting formed a cycle.
void fine_rounds(const RingView& ring, int steps, double segment, const CollectiveEnv& env,
                 double rate) {
  std::vector<sg4::CommPtr> outs;
  outs.reserve(static_cast<size_t>(steps * ring.channels));
  std::vector<sg4::CommPtr> ins(static_cast<size_t>(ring.channels));
  size_t waited = 0;
  for (int s = 0; s < steps; ++s) {
    // NCCL_STEPS buffer slots: round s reuses round s - 8's slot, freed once that send was
    // received.
    if (s >= kNcclSteps)
      for (int c = 0; c < ring.channels; ++c) wait_on(outs[waited++], kSending);
    for (int c = 0; c < ring.channels; ++c) {
      const Inboxes& lane = ring.inboxes->lane(c);
      outs.push_back(send(lane, next_on(ring, c), segment / ring.channels, env, rate));
      ins[static_cast<size_t>(c)] = receive(lane, ring.me);
    }
    for (const sg4::CommPtr& in : ins) wait_on(in, kReceiving);
  }
  for (; waited < outs.size(); ++waited) wait_on(outs[waited], kSending);
}

} // namespace

sg4::CommPtr send(const Inboxes& inboxes, int to_rank, double bytes, const CollectiveEnv& env,
                  double rate) {
  env.counters->comms += 1;
  if (env.traffic != nullptr) env.traffic->add(env.rank, to_rank, bytes);
  auto size = static_cast<uint64_t>(std::llround(bytes));
  sg4::Mailbox* inbox = inboxes[static_cast<size_t>(to_rank)];
  sg4::CommPtr comm;
  if (rate <= 0) {
    comm = inbox->put_async(&g_payload, size);
  } else {
    comm = inbox->put_init(&g_payload, size);
    comm->set_rate(rate);
    comm->start();
  }
  if (critical_path::on())
    critical_path::posted(*comm, true, inboxes.name(), static_cast<double>(size),
                          std::max(rate, 0.0));
  return comm;
}

sg4::CommPtr receive(const Inboxes& inboxes, int my_rank) {
  sg4::CommPtr comm = inboxes[static_cast<size_t>(my_rank)]->get_async<int>(&g_received);
  if (critical_path::on()) critical_path::posted(*comm, false, inboxes.name());
  return comm;
}

RingView ring_of(const Group& g, const Inboxes& inboxes) {
  return RingView{&inboxes,
                  g.rank(),
                  g.ring_next(),
                  g.hop_latency,
                  g.span(),
                  g.me,
                  g.span().ring_channels(),
                  g.bundle_next < 0};
}

int ring_steps(CollectiveOp op, int size) {
  return op == CollectiveOp::all_reduce ? 2 * (size - 1) : size - 1;
}

namespace {

// The rate NCCL moves a ring's steps of `segment` bytes at, when it runs below the links' own
// bandwidth (an NVLink ring of the per-operator path); 0: no cap.
double nccl_rate(const RingCost* cost, double segment, const CollectiveEnv& env) {
  if (cost == nullptr) return 0;
  double fraction = nvlink_fraction(cost->slowest.tier, Bytes(segment), env.nvlink);
  return fraction < 1.0 ? fraction * cost->slowest.bandwidth.value() : 0;
}

} // namespace

void ring_rounds(const RingView& ring, int steps, double segment, const CollectiveEnv& env) {
  if (steps < 1) return;
  const RingCost* cost = env.paths != nullptr ? &env.paths->ring(ring.members) : nullptr;
  double nccl = nccl_rate(cost, segment, env);
  if (env.fidelity == Fidelity::fine) {
    fine_rounds(ring, steps, segment, env, nccl);
    return;
  }
  // Fine mode pays a latency before each round's bytes, so its traffic spans the rounds'
  // whole time. The merged flow pays the other rounds' latencies half before and half after
  // it: centred where fine mode's traffic is, it meets what fine mode's rounds meet. Paid all
  // before, a stream's reduction started later than its rounds did and met other passes' TP
  // collectives (validate's random scenario 200: +4.9% against fine mode; centred, -0.6%).
  bool uniform = cost == nullptr || cost->uniform;
  // An in_rounds ring's rounds each hold its members to the slowest one's pace at that moment,
  // as fine mode's do (Op::in_rounds); as many as kMaxRoundsInRounds keep most of that.
  int rounds = env.in_rounds ? std::min(steps, kMaxRoundsInRounds) : 1;
  double half_rest =
      (uniform ? ring.hop_latency : cost->max_latency).value() * (steps - rounds) / 2;
  if (steps > rounds) sg4::this_actor::sleep_for(half_rest);
  if (rounds > 1) {
    fine_rounds(ring, rounds, segment * steps / rounds, env, nccl);
  } else if (uniform) {
    ring_exchange(ring, segment * steps, env, nccl);
  } else {
    // Every member posts after the same wait, so that no flow is held up by a receiver that
    // posts late; each then pays its own pair's latency once.
    double slowest = cost->slowest.bandwidth.value();
    ring_exchange(ring, segment * steps, env, nccl > 0 ? std::min(nccl, slowest) : slowest);
  }
  if (steps > rounds) sg4::this_actor::sleep_for(half_rest);
  // A ring step by step holds every member to the slowest flow's pace: none can send step s+1
  // before it received step s, so all finish within a step of each other. Merged, each
  // member's flows end on their own, and one whose links are less loaded would run ahead,
  // its wait for the others showing later as idle (ZeRO-3's per-layer gathers). The members
  // leave together, at the end of the slowest flow.
  if (ring.whole) {
    sg4::Barrier& together = ring.inboxes->barrier(ring.members);
    critical_path::Ticket ticket =
        critical_path::arriving(&together, ring.members.size, ring.inboxes->name());
    together.wait();
    critical_path::left(ticket);
  }
}

Seconds ring_alone(CollectiveOp op, const Group& g, Bytes bytes, int count,
                   const CollectiveEnv& env) {
  if (g.size < 2) return Seconds(0);
  const RingCost& cost = env.paths->ring(g.span());
  TRAINSIM_CHECK(cost.uniform && g.span().ring_channels() == 1,
                 "ring_alone() on a ring whose pairs differ");
  double segment = bytes.value() / g.size, steps = ring_steps(op, g.size) * count;
  double nccl = nccl_rate(&cost, segment, env);
  double rate = nccl > 0 ? nccl : cost.slowest.bandwidth.value();
  return Seconds(steps * (cost.max_latency.value() + segment / rate));
}

namespace {

// Ring: reduce-scatter and all-gather each take p-1 rounds of n/p bytes; an all-reduce is
// both, 2(p-1) rounds: t = 2(p-1) (alpha + n / (p B)).
class Ring final : public CollectiveAlgorithm {
protected:
  // count rings back to back are count x steps rounds of the same segment size.
  void run_calls(CollectiveOp op, const Group& g, Bytes bytes, int count,
                 const CollectiveEnv& env) const override {
    ring_rounds(ring_of(g, env.mailboxes->channel(g.channel)), ring_steps(op, g.size) * count,
                bytes.value() / g.size, env);
  }
};

} // namespace

std::unique_ptr<CollectiveAlgorithm> make_ring() { return std::make_unique<Ring>(); }

namespace {

// NCCL's choice by size (models/collective_cost.hpp: auto_runs_tree), on the ring's slowest
// pair as the bound sees it; without the group's routes (env.paths unset), the ring.
class Auto final : public CollectiveAlgorithm {
public:
  [[nodiscard]] bool runs_alone_in_node() const override { return false; }

protected:
  void run_calls(CollectiveOp op, const Group& g, Bytes bytes, int count,
                 const CollectiveEnv& env) const override {
    bool tree = false;
    if (env.paths != nullptr) {
      const RingCost& ring = env.paths->ring(g.span());
      tree = auto_runs_tree(op, bytes, g.size, g.span().ring_channels(), ring.slowest.latency,
                            ring.slowest.bandwidth);
    }
    (tree ? *tree_ : *ring_).run_repeated(op, g, bytes, count, env);
  }

private:
  std::unique_ptr<CollectiveAlgorithm> ring_ = make_ring(), tree_ = make_tree();
};

} // namespace

std::unique_ptr<CollectiveAlgorithm> make_auto() { return std::make_unique<Auto>(); }

} // namespace trainsim::sim::detail

namespace trainsim::sim {

Seconds CollectiveAlgorithm::time_alone(CollectiveOp op, const Group& g, Bytes bytes, int count,
                                        const CollectiveEnv& env) const {
  if (env.traffic != nullptr && g.size > 1)
    env.traffic->add(env.rank, g.ring_next(),
                     bytes.value() / g.size * count * detail::ring_steps(op, g.size));
  return detail::ring_alone(op, g, bytes, count, env);
}

} // namespace trainsim::sim
