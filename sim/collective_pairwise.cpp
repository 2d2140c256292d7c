// Pairwise (direct) all-to-all.
#include <simgrid/s4u.hpp>

#include "sim/collective_steps.hpp"

namespace trainsim::sim::detail {
namespace {

namespace sg4 = simgrid::s4u;

// p-1 rounds; in round k a rank sends n/p to member me+k and receives n/p from member me-k.
// Fine: round by round, t = (p-1)(alpha + n / (p B)) when no two flows of a round share a
// link. Fast: all p-1 sends and receives at once (one blocking wait), after waiting the other
// p-2 rounds' latency (the hop latency to member me+1 stands for every round's): without
// contention the rank's link carries the same (p-1) n/p bytes, so both give the same time.
// All messages to a rank share one channel: they have the same size, so whichever send a
// receive matches, the bytes and their path are those of the schedule.
class Pairwise final : public CollectiveAlgorithm {
protected:
  void run_calls(CollectiveOp /*op*/, const Group& g, Bytes bytes, int count, const CollectiveEnv& env) const override {
    const Inboxes& inboxes = *channel_.get(g.channel, *env.mailboxes)[0];
    double chunk = bytes.value() / g.size;
    if (env.fidelity == Fidelity::fine) {
      for (int k = 1; k < g.size; ++k) round(g, inboxes, k, chunk, env);
      return;
    }
    sg4::this_actor::sleep_for(g.hop_latency.value() * (count * (g.size - 1) - 1));
    all_at_once(g, inboxes, chunk * count, env);
  }

public:
  [[nodiscard]] bool supports(CollectiveOp op) const override { return op == CollectiveOp::all_to_all; }

private:
  static void round(const Group& g, const Inboxes& inboxes, int k, double chunk, const CollectiveEnv& env) {
    sg4::CommPtr out = send(inboxes, g.member(g.me + k), chunk, env);
    receive(inboxes, g.rank())->wait();
    out->wait();
  }
  static void all_at_once(const Group& g, const Inboxes& inboxes, double chunk, const CollectiveEnv& env) {
    std::vector<sg4::CommPtr> comms;
    comms.reserve(2 * static_cast<size_t>(g.size - 1));
    for (int k = 1; k < g.size; ++k) comms.push_back(send(inboxes, g.member(g.me + k), chunk, env));
    for (int k = 1; k < g.size; ++k) comms.push_back(receive(inboxes, g.rank()));
    sg4::Comm::wait_all(comms);
  }

  SubChannels<1> channel_{{"a2a"}};
};

} // namespace

std::unique_ptr<CollectiveAlgorithm> make_pairwise() { return std::make_unique<Pairwise>(); }

} // namespace trainsim::sim::detail
