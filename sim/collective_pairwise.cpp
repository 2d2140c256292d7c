// Exchanges among all of a group's members: the pairwise all-to-all, in rounds, and the
// direct (one-shot) reduce-scatter, all-gather and all-reduce, all at once.
#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/collective_steps.hpp"
#include "sim/traffic.hpp"

#include "models/check.hpp"
#include "models/collective_cost.hpp"
#include "topologies/topology.hpp"
#include "topologies/group_paths.hpp"

namespace trainsim::sim::detail {
namespace {

namespace sg4 = simgrid::s4u;

// topo::behind_one_switch() per group, worked out once: it routes every pair.
class OneSwitchGroups {
public:
  bool behind_one_switch(const GroupSpan& g, const topo::Topology& t) const {
    auto key = std::make_tuple(&t, g.base, g.stride, g.size);
    auto it = known_.find(key);
    if (it == known_.end()) it = known_.emplace(key, topo::behind_one_switch(g, t)).first;
    return it->second;
  }

private:
  mutable std::map<std::tuple<const topo::Topology*, int, int, int>, bool> known_;
};

// The channel of each member offset k (index 0 unused), looked up once per group channel and
// Mailboxes instance: building the names on every call would allocate in the hot path.
class PeerChannels : public CollectiveAlgorithm {
protected:
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

  /// Sends `bytes` to each (channel, member) of `sends` and receives as much on each of those
  /// channels, all at once: every member uses a channel for one send and one receive, the
  /// one from the member that sends to it on that channel.
  static void exchange(const Group& g, const std::vector<const Inboxes*>& peers,
                       const std::vector<std::pair<int, int>>& sends, double bytes,
                       const CollectiveEnv& env) {
    std::vector<sg4::CommPtr> outs, ins;
    for (auto [channel, member] : sends) {
      const Inboxes& inboxes = *peers[static_cast<size_t>(channel)];
      outs.push_back(send(inboxes, g.member(member), bytes, env));
      ins.push_back(receive(inboxes, g.rank()));
    }
    for (const sg4::CommPtr& in : ins) wait_on(in, kReceiving);
    for (const sg4::CommPtr& out : outs) wait_on(out, kSending);
  }

  /// exchange(), or in fast mode, where the members of `among` share no link but their own
  /// (topo::behind_one_switch), one flow of all its bytes to the first send's member: every
  /// member's flows leave over its own path and arrive over the receiver's, side by side, so
  /// one flow moves the same bytes over the same links in the same time without contention.
  /// Each pair's bytes are counted as its own. The first send must be every member's same
  /// offset, so that each receives one flow on that channel. Not with every link a fat pipe
  /// (SimOptions::shared_links false), where each of the flows takes its links' whole
  /// bandwidth and they end together, (count - 1) x bytes sooner than one flow of them all.
  void exchange_on_own_paths(const Group& g, const std::vector<const Inboxes*>& peers,
                             const std::vector<std::pair<int, int>>& sends, double bytes,
                             const GroupSpan& among, const CollectiveEnv& env) const {
    if (env.fidelity != Fidelity::fast || !env.shared_links || sends.size() < 2 ||
        !one_switch_.behind_one_switch(among, *env.topology)) {
      exchange(g, peers, sends, bytes, env);
      return;
    }
    as_one_flow(g, peers, sends, bytes, env);
  }

  /// One flow of `bytes` for each of `sends` to the first send's member, on its channel; each
  /// pair's bytes counted as its own for the link report.
  static void as_one_flow(const Group& g, const std::vector<const Inboxes*>& peers,
                          const std::vector<std::pair<int, int>>& sends, double bytes,
                          const CollectiveEnv& env) {
    if (env.traffic != nullptr)
      for (auto [channel, member] : sends) env.traffic->add(env.rank, g.member(member), bytes);
    CollectiveEnv counted = env;
    counted.traffic = nullptr;
    exchange(g, peers, {sends.front()}, bytes * static_cast<double>(sends.size()), counted);
  }

  OneSwitchGroups one_switch_;

private:
  struct Entry {
    const Mailboxes* mailboxes;
    std::string channel;
    std::vector<const Inboxes*> rounds;
  };
  mutable std::deque<Entry> cache_; // a deque: references returned stay valid as entries are added
};

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
//
// Fast mode merges the rounds too where that moves every link's bytes as the rounds do: a
// balanced exchange among members behind one switch, each on a link of its own of one
// bandwidth and latency (one node's NVLink). A member's rounds then cross only its own link
// up and the receiver's link down, one flow on each at a time, so they take (p-1)(alpha + n
// / (p B)) whether run one by one or as one flow of the rounds' bytes to member me + 1 (its
// link up and that member's link down carry the same bytes) after waiting out the other
// rounds' latencies. On DeepSeek-V3's rows, 32 and 64 experts' ranks in an NVL72 rack, the
// rounds were almost every SimGrid activity of the step.
class Pairwise final : public PeerChannels {
protected:
  void run_calls(CollectiveOp /*op*/, const Group& g, Bytes bytes, int count,
                 const CollectiveEnv& env) const override {
    const std::vector<const Inboxes*>& rounds = rounds_of(g, *env.mailboxes);
    double segment = bytes.value() / g.size;
    if (merges_rounds(g, env)) {
      merged(g, rounds, segment * count, count, env);
      return;
    }
    if (count > 1) sg4::this_actor::sleep_for(round_latencies(g, env) * (count - 1));
    for (int k = 1; k < g.size; ++k)
      round(g, rounds, k, segment * count * env.routing.pair_load(g.me, (g.me + k) % g.size), env);
  }

private:
  bool merges_rounds(const Group& g, const CollectiveEnv& env) const {
    bool balanced = env.routing.loads == nullptr || env.routing.loads->empty();
    return env.fidelity == Fidelity::fast && balanced && g.size > 2 &&
           one_switch_.behind_one_switch(g.span(), *env.topology);
  }
  /// The rounds of `count` calls as one flow to member me + 1 carrying `segment` (the calls'
  /// share for one member) for each other member; each pair's bytes counted as its own.
  static void merged(const Group& g, const std::vector<const Inboxes*>& rounds, double segment,
                     int count, const CollectiveEnv& env) {
    double own = env.topology->path_latency(g.rank(), g.member(g.me + 1)).value();
    sg4::this_actor::sleep_for(round_latencies(g, env) * count - own);
    std::vector<std::pair<int, int>> sends; // round k's channel and member
    for (int k = 1; k < g.size; ++k) sends.emplace_back(k, g.me + k);
    as_one_flow(g, rounds, sends, segment, env);
  }

  // Each sender sends its own bytes (under imbalance, as much as the pair's load says); the
  // receive takes whatever its sender sent.
  static void round(const Group& g, const std::vector<const Inboxes*>& rounds, int k,
                    double segment, const CollectiveEnv& env) {
    const Inboxes& inboxes = *rounds[static_cast<size_t>(k)];
    sg4::CommPtr out = send(inboxes, g.member(g.me + k), segment, env);
    wait_on(receive(inboxes, g.rank()), kReceiving);
    wait_on(out, kSending);
  }
  /// What one call's rounds pay in latency: each round waits for its slower side, the send
  /// to me + k or the receive from me - k (models/fabric.hpp, as the bound counts it).
  static double round_latencies(const Group& g, const CollectiveEnv& env) {
    return rounds_cost(g.span(), g.me, topo::pair_costs(*env.topology)).latency.value();
  }
};

// Direct: each phase (a reduce-scatter or an all-gather; an all-reduce is both) sends n/p to
// every other member at once and receives n/p from each, as Transformer Engine's userbuffers
// kernels read and write their peers' buffers over NVLink (docs/architecture.md). The member's
// own links carry its p-1 flows side by side: t = phases x (alpha + (p-1) n / (p B)) inside
// one node. Fast mode moves the phases' and calls' bytes in one exchange after waiting out
// the other phases' latencies (the slowest peer's each), the same time without contention,
// and behind one switch as one flow (exchange_on_own_paths).
class Direct final : public PeerChannels {
public:
  Seconds time_alone(CollectiveOp op, const Group& g, Bytes bytes, int count,
                     const CollectiveEnv& env) const override {
    if (env.traffic != nullptr)
      for (int k = 1; k < g.size; ++k)
        env.traffic->add(env.rank, g.member(g.me + k),
                         bytes.value() / g.size * count * direct_phases(op));
    return direct_alone(op, g, bytes, count, env);
  }

protected:
  void run_calls(CollectiveOp op, const Group& g, Bytes bytes, int count,
                 const CollectiveEnv& env) const override {
    const std::vector<const Inboxes*>& peers = rounds_of(g, *env.mailboxes);
    int phases = direct_phases(op) * count;
    double segment = bytes.value() / g.size;
    std::vector<std::pair<int, int>> sends = everyone(g);
    if (env.fidelity == Fidelity::fine) {
      for (int i = 0; i < phases; ++i) exchange(g, peers, sends, segment, env);
      return;
    }
    sg4::this_actor::sleep_for(slowest_peer(g, env) * (phases - 1));
    exchange_on_own_paths(g, peers, sends, segment * phases, g.span(), env);
  }

private:
  /// Member me + k on channel k, for every other member.
  static std::vector<std::pair<int, int>> everyone(const Group& g) {
    std::vector<std::pair<int, int>> sends;
    for (int k = 1; k < g.size; ++k) sends.emplace_back(k, g.me + k);
    return sends;
  }
  /// The longest latency between this member and a peer, either way: its ring's where
  /// the group is one node's, else looked up pair by pair.
  static double slowest_peer(const Group& g, const CollectiveEnv& env) {
    if (env.paths != nullptr && g.ring_block == g.size)
      return env.paths->ring(g.span()).max_latency.value();
    double slowest = 0;
    for (int k = 1; k < g.size; ++k)
      slowest = std::max({slowest, env.topology->path_latency(g.rank(), g.member(g.me + k)).value(),
                          env.topology->path_latency(g.member(g.me - k), g.rank()).value()});
    return slowest;
  }
};

// DeepEP's all-to-all in two hops (deepseek-ai/DeepEP's normal kernels): the group splits into
// nodes of `block` members (Group::ring_block). First every member sends, to each other node's
// member on its own rail and all at once, the tokens bound for that node's experts, each token
// once (deepep_network_share() of the block's n / p copies per member); then it forwards over
// NVLink to each of its node's other members the copies for them: its own n / p and, from
// each other node, the n / p that node's member on its rail sent for them. Combine runs the
// same volumes back. Fast mode pays the other calls' latencies and moves their bytes at once,
// as Direct does, each hop as one flow where its members reach one switch on paths of their
// own (exchange_on_own_paths: a rack's NVLink, a rail leaf's NICs).
class TwoHop final : public PeerChannels {
protected:
  void run_calls(CollectiveOp /*op*/, const Group& g, Bytes bytes, int count,
                 const CollectiveEnv& env) const override {
    const std::vector<const Inboxes*>& peers = rounds_of(g, *env.mailboxes);
    int block = g.size % g.ring_block == 0 ? g.ring_block : 1, nodes = g.size / block;
    double copy = bytes.value() / g.size * count;
    double across = copy * block * deepep_network_share(env.routing, g.size, block),
           forwarded = copy * nodes;
    if (count > 1) sg4::this_actor::sleep_for(latencies(g, block, env) * (count - 1));
    std::vector<std::pair<int, int>> sends; // (channel, member): n x block for a node, t in it
    for (int n = 1; n < nodes; ++n) sends.emplace_back(n * block, g.me + n * block);
    exchange_on_own_paths(g, peers, sends, across, across_blocks(g.span(), block, g.me), env);
    sends.clear();
    for (int t = 1; t < block; ++t) sends.emplace_back(t, within(g, block, t));
    exchange_on_own_paths(g, peers, sends, forwarded, block_of(g.span(), block, g.me), env);
  }

private:
  /// My node's member t places after me, wrapping inside the node: it receives from me on
  /// channel t, and I from the member t places before me.
  static int within(const Group& g, int block, int t) {
    return g.me - g.me % block + (g.me % block + t) % block;
  }
  /// One call's latencies: the farthest peer's of each hop.
  static double latencies(const Group& g, int block, const CollectiveEnv& env) {
    double across = 0, near = 0;
    for (int n = 1; n < g.size / block; ++n)
      across = std::max(across,
                        env.topology->path_latency(g.rank(), g.member(g.me + n * block)).value());
    for (int t = 1; t < block; ++t)
      near = std::max(near,
                      env.topology->path_latency(g.rank(), g.member(within(g, block, t))).value());
    return across + near;
  }
};

} // namespace

std::unique_ptr<CollectiveAlgorithm> make_deepep() { return std::make_unique<TwoHop>(); }

int direct_phases(CollectiveOp op) { return op == CollectiveOp::all_reduce ? 2 : 1; }

Seconds direct_alone(CollectiveOp op, const Group& g, Bytes bytes, int count,
                     const CollectiveEnv& env) {
  if (g.size < 2) return Seconds(0);
  const RingCost& cost = env.paths->ring(g.span());
  TRAINSIM_CHECK(cost.uniform, "direct_alone() on a group whose pairs differ");
  // A member's g - 1 shares leave it at once over its one link: in turn where the link is
  // shared, side by side at its whole bandwidth where it is a fat pipe (validate's check of
  // the fast mode's own error), as fine mode's flows then move.
  double flows = env.shared_links ? g.size - 1 : 1;
  double per_phase =
      cost.max_latency.value() + bytes.value() * flows / g.size / cost.slowest.bandwidth.value();
  return Seconds(direct_phases(op) * count * per_phase);
}

std::unique_ptr<CollectiveAlgorithm> make_pairwise() { return std::make_unique<Pairwise>(); }
std::unique_ptr<CollectiveAlgorithm> make_direct() { return std::make_unique<Direct>(); }

} // namespace trainsim::sim::detail
