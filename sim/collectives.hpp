// Collective algorithms, registered by name with a one-line description and chosen by the
// scenario. Each moves its real byte counts as SimGrid communications between the members'
// hosts, so link sharing and latency come from the simulated fabric.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/layout.hpp"
#include "models/units.hpp"
#include "sim/stats.hpp"
#include "models/collectives.hpp"
#include "models/fabric.hpp"

#include <simgrid/forward.h> // simgrid::s4u::Mailbox, Barrier, BarrierPtr

namespace trainsim::topo {
class Topology;
}

namespace trainsim::sim {

/// fine: every algorithm step is its own set of flows (the reference);
/// fast: steps that move data over the same path are merged into one flow per rank, with the
/// per-step latencies kept (docs/fast-mode.md, "Fidelity modes").
enum class Fidelity { fast, fine };

using trainsim::CollectiveOp; // the catalogue's operations (models/collectives.hpp)

/// One channel's inboxes, indexed by rank. Each is created on first use: from inside an
/// actor, creating a mailbox is a simcall, so creating a whole channel there would take one
/// scheduling round per rank, while each actor creating its own and its peers' is parallel.
class Channel {
public:
  Channel(std::string name, int ranks)
      : name_(std::move(name)), boxes_(static_cast<size_t>(ranks), nullptr) {}
  simgrid::s4u::Mailbox* operator[](size_t rank) const;
  [[nodiscard]] const std::string& name() const { return name_; }
  /// Where the members of the ring `span` on this channel meet when a fast-mode collective
  /// ends (collective_steps.cpp, ring_rounds); created on first use, reused by every call.
  simgrid::s4u::Barrier& barrier(const GroupSpan& span) const;
  /// The inboxes of ring channel `c` of a group's rings side by side (GroupSpan::
  /// ring_channels()): each carries one predecessor's messages, in the order sent, as each of
  /// NCCL's channels is a connection of its own. Created on first use; lane 0 is this channel.
  const Channel& lane(int c) const;

private:
  std::string name_;
  mutable std::vector<simgrid::s4u::Mailbox*> boxes_;
  mutable std::vector<std::unique_ptr<Channel>> lanes_; ///< lanes 1, 2, ...
  mutable std::map<std::tuple<int, int, int, int>, simgrid::s4u::BarrierPtr> barriers_;
};

/// Mailboxes by channel name and rank, shared by every actor of one simulation. A channel
/// carries one kind of message (a group's collectives, or one phase of a hierarchical one),
/// so a receive never matches a message meant for another phase.
class Mailboxes {
public:
  explicit Mailboxes(int ranks) : ranks_(ranks) {}
  /// The channel called `name`; created on first use.
  const Channel& channel(std::string_view name);

private:
  int ranks_;
  // A deque: references handed out by channel() stay valid as channels are added.
  std::deque<Channel> channels_;
};

/// One rank's view of a group whose members are the ranks base + i * stride, i < size.
struct Group {
  int base = 0;
  int stride = 1;
  int size = 1;
  int me = 0;          ///< this rank's index in the group
  std::string channel; ///< mailbox channel of this group's messages (e.g. "tp", "dp")
  Seconds hop_latency; ///< path latency from this rank to the next on the ring (make_group)
  int ring_block = 1;  ///< members per node of the rail-aligned ring (GroupSpan::ring_next)
  /// Replica bundling (sim/replica_bundle.hpp): the rank the ring sends to in place of its next
  /// member, which is not simulated; -1: the next member. The ring's size, steps and pairs'
  /// costs stay the real group's.
  int bundle_next = -1;

  [[nodiscard]] GroupSpan span() const { return {base, stride, size, ring_block}; }
  [[nodiscard]] int ring_next() const {
    return bundle_next >= 0 ? bundle_next : member(span().ring_next(me));
  }
  [[nodiscard]] int member(int i) const { return span().member(i); }
  [[nodiscard]] int rank() const { return member(me); }
};

/// A group whose ring is rail-aligned on the topology's nodes (ring_block: node_block()),
/// with hop_latency filled in from the route to the next member on it.
Group make_group(int base, int stride, int size, int me, std::string channel,
                 const topo::Topology& topology);

/// Each ring's neighbour pairs (topologies/group_paths), computed once per group and shared
/// by its members: a ring of p members costs p routes, not p per member.
class GroupPaths {
public:
  explicit GroupPaths(PairCosts pairs) : pairs_(std::move(pairs)) {}
  const RingCost& ring(const GroupSpan& span);

private:
  PairCosts pairs_;
  std::map<std::tuple<int, int, int, int>, RingCost> rings_;
};

/// What an algorithm may use besides its group.
struct CollectiveEnv {
  Fidelity fidelity = Fidelity::fast;
  Mailboxes* mailboxes = nullptr;
  const topo::Topology* topology = nullptr;
  GroupPaths* paths =
      nullptr; ///< when set, fast mode paces rings whose pairs differ (collective_steps.hpp)
  Counters* counters = nullptr;
  class Traffic* traffic = nullptr; ///< when set, every send is counted for link statistics
  int rank = -1;                    ///< the rank whose actor runs the collective (the sender)
  /// When set, rings over NVLink move each step at NCCL's efficiency for its bytes
  /// (models/collective_cost.hpp: nvlink_fraction), as the bound prices them.
  const CollectiveEfficiency* nvlink = nullptr;
  /// false: every link is a fat pipe (SimOptions::shared_links), so the flows a GPU sends at
  /// once each take its link's whole bandwidth; time_alone() prices them so.
  bool shared_links = true;
  /// Fast mode: a ring runs its rounds merged into at most kMaxRoundsInRounds rounds rather
  /// than one flow per member (Op::in_rounds, the delayed update's collectives).
  bool in_rounds = false;
  /// The routing of the tokens an expert all-to-all carries, for an algorithm that sends
  /// each token once per node (DeepEP's); unknown by default: every copy is sent.
  ExpertRouting routing{};
};

class CollectiveAlgorithm {
public:
  virtual ~CollectiveAlgorithm() = default;
  /// Every member calls run() with the same arguments and returns when its own part is done.
  /// `bytes` is the size of the whole tensor on one rank: the input of an all-reduce or a
  /// reduce-scatter, the output of an all-gather, everything one rank sends in an all-to-all.
  void run(CollectiveOp op, const Group& group, Bytes bytes, const CollectiveEnv& env) const {
    run_repeated(op, group, bytes, 1, env);
  }
  /// `count` identical collectives back to back, as fast mode folds the per-layer ones of a
  /// pipeline pass. A group of one has nothing to do; fine mode runs the calls one by one.
  void run_repeated(CollectiveOp op, const Group& group, Bytes bytes, int count,
                    const CollectiveEnv& env) const {
    if (group.size < 2) return;
    if (env.fidelity == Fidelity::fine) {
      for (int i = 0; i < count; ++i) run_calls(op, group, bytes, 1, env);
      return;
    }
    run_calls(op, group, bytes, count, env);
  }
  /// Rail bundling (sim/rail_bundle.hpp): what `count` calls take on a group inside one node
  /// whose links nothing else uses, this rank's sends recorded in env.traffic for every
  /// member's. A ring unless overridden: inside one node the hierarchical algorithm and PAT
  /// are one.
  [[nodiscard]] virtual Seconds time_alone(CollectiveOp op, const Group& group, Bytes bytes,
                                           int count, const CollectiveEnv& env) const;
  /// Whether time_alone() is this algorithm's time inside one node, so that rail bundling
  /// may wait a node's calls out instead of running them (not the tree's, nor NCCL's choice).
  [[nodiscard]] virtual bool runs_alone_in_node() const { return true; }

protected:
  /// The algorithm: `count` calls (1 in fine mode) on a group of at least two members. Fast
  /// mode may move all the calls' bytes at once but pays every call's latency.
  virtual void run_calls(CollectiveOp op, const Group& group, Bytes bytes, int count,
                         const CollectiveEnv& env) const = 0;
};

/// The implementation of the catalogue's algorithm `name` (models/collectives.hpp).
std::unique_ptr<CollectiveAlgorithm> make_collective(const std::string& name);

} // namespace trainsim::sim
