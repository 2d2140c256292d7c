// Pairwise (direct) all-to-all.
#include <simgrid/s4u.hpp>

#include "sim/collective_steps.hpp"
#include "topologies/group_paths.hpp"

namespace trainsim::sim::detail {
namespace {

namespace sg4 = simgrid::s4u;

// p-1 rounds; in round k a rank sends n/p to member me+k and receives n/p from member me-k,
// and waits for both before the next round: t = (p-1)(alpha + n / (p B)) when no two flows of
// a round share a link and every round crosses the same tier. Fast mode runs the same rounds
// once for `count` back-to-back calls, each round moving the calls' bytes together, after
// waiting out the other calls' round latencies: without contention, the same time.
//
// Each round offset k has its own channel, so a receive can only match the message of its
// sender me-k, and messages of one sender arrive in order. With one channel for all rounds,
// a receive took whichever message came first; a rank that was a round ahead could then use
// up a slower peer's receive, and under rendezvous both ranks ended up waiting for sends that
// nobody would receive (fine mode deadlocked on 16-way EP).
class Pairwise final : public CollectiveAlgorithm {
protected:
  void run_calls(CollectiveOp /*op*/, const Group& g, Bytes bytes, int count,
                 const CollectiveEnv& env) const override {
    const std::vector<const Inboxes*>& rounds = rounds_of(g, *env.mailboxes);
    double chunk = bytes.value() / g.size;
    if (count > 1) sg4::this_actor::sleep_for(round_latencies(g, env) * (count - 1));
    for (int k = 1; k < g.size; ++k) round(g, rounds, k, chunk * count, env);
  }

private:
  static void round(const Group& g, const std::vector<const Inboxes*>& rounds, int k, double chunk,
                    const CollectiveEnv& env) {
    const Inboxes& inboxes = *rounds[static_cast<size_t>(k)];
    sg4::CommPtr out = send(inboxes, g.member(g.me + k), chunk, env);
    wait_on(receive(inboxes, g.rank()), kReceiving);
    wait_on(out, kSending);
  }
  /// What one call's rounds pay in latency: each round waits for its slower side, the send
  /// to me + k or the receive from me - k (models/fabric.hpp, as the bound counts it).
  static double round_latencies(const Group& g, const CollectiveEnv& env) {
    return rounds_cost(g.span(), g.me, topo::pair_costs(*env.topology)).latency.value();
  }

  /// The channel of each round offset k (index 0 unused), looked up once per group channel
  /// and Mailboxes instance: building the names on every call would allocate in the hot path.
  const std::vector<const Inboxes*>& rounds_of(const Group& g, Mailboxes& mailboxes) const {
    for (const Entry& e : cache_)
      if (e.mailboxes == &mailboxes && e.channel == g.channel &&
          e.rounds.size() == static_cast<size_t>(g.size))
        return e.rounds;
    Entry& e = cache_.emplace_back(Entry{&mailboxes, g.channel, {nullptr}});
    for (int k = 1; k < g.size; ++k)
      e.rounds.push_back(&mailboxes.channel(g.channel + ".a2a" + std::to_string(k)));
    return e.rounds;
  }

  struct Entry {
    const Mailboxes* mailboxes;
    std::string channel;
    std::vector<const Inboxes*> rounds;
  };
  mutable std::deque<Entry> cache_; // a deque: references returned stay valid as entries are added
};

} // namespace

std::unique_ptr<CollectiveAlgorithm> make_pairwise() { return std::make_unique<Pairwise>(); }

} // namespace trainsim::sim::detail
