#include "sim/critical_path.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <simgrid/s4u.hpp>

#include "sim/platform.hpp"

namespace trainsim::sim::critical_path {
namespace {

namespace sg4 = simgrid::s4u;

// SimGrid's timing precision: a wait this short is a tie, and a tie keeps the actor's own path.
constexpr double kTie = 1e-9;

// A hand-over's transfer as the sender posted it, priced on idle links at the end.
struct Transfer {
  const sg4::Host* from = nullptr;
  const sg4::Host* to = nullptr;
  double bytes = 0;
  double rate = 0; ///< the flow's cap; 0: none
};

// One actor's stretch of a path: from `start` until whatever follows it hands over.
struct Node {
  int rank = 0;
  bool stream = false;
  PathStep::Via via = PathStep::Via::start;
  bool reverse = false; ///< the data went to `from`'s GPU: its late receive released our send
  double start = 0;
  double handed = 0; ///< when `from` handed over
  Transfer transfer; ///< what carried the hand-over; no bytes: a barrier or a stream
  mutable std::shared_ptr<const Node> from;

  Node(int r, bool s, PathStep::Via v, bool rev, double st, double h, Transfer t,
       std::shared_ptr<const Node> f)
      : rank(r), stream(s), via(v), reverse(rev), start(st), handed(h), transfer(t),
        from(std::move(f)) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  // A chain no one else holds is let go node by node: recursing down thousands of nodes
  // would overflow an actor's small stack.
  ~Node() {
    std::shared_ptr<const Node> next = std::move(from);
    while (next && next.use_count() == 1) next = std::move(next->from);
  }
};
using NodePtr = std::shared_ptr<const Node>;

// An actor's latest heads: a receiver looks up its sender's head as it was when it sent, and
// the sender may have taken over another path since: in fine mode up to a round per slot of
// NCCL's 8 (sim/collective_steps.cpp), so twice that many are kept.
constexpr size_t kKept = 16;

struct ActorPaths {
  std::array<NodePtr, kKept> heads{};
  size_t newest = 0;
  double job_end = 0; ///< a stream's: when its last job ended

  [[nodiscard]] const NodePtr& head() const { return heads[newest]; }
  void push(NodePtr n) {
    newest = (newest + 1) % kKept;
    heads[newest] = std::move(n);
  }
  /// The head at time `t` (strictly before `t` with `strict`); none if every head kept is
  /// later, and the waiter then keeps its own path rather than one that starts after it.
  [[nodiscard]] NodePtr at(double t, bool strict) const {
    for (size_t k = 0; k < kKept; ++k) {
      const NodePtr& n = heads[(newest + kKept - k) % kKept];
      if (!n) break;
      if (strict ? n->start < t : n->start <= t) return n;
    }
    return nullptr;
  }
};

// A barrier's latest arrival (time, pid) in each of two generations: a member cannot arrive
// for generation g + 2 before every member has left generation g (and read its slot).
struct Arrivals {
  int members = 0;
  long count = 0;
  std::array<std::pair<double, long>, 2> last{};
};

// Both sides of one message: who posted each side and when. Dropped once both completed.
struct Sides {
  struct Side {
    long pid = -1;
    double posted = 0;
    bool done = false;
  };
  Side send, receive;
  PathStep::Via via = PathStep::Via::start;
  double bytes = 0, rate = 0; ///< the sender's
};

struct State {
  bool on = false;
  std::vector<ActorPaths> by_pid;
  std::vector<long> pid_of_rank;
  std::unordered_map<const void*, Arrivals> barriers;
  std::unordered_map<const void*, Sides> messages; ///< by SimGrid's comm
};

// One per process: SimGrid 3.32 runs one engine per process (sim/child_process.hpp).
State& state() {
  static State s;
  return s;
}

double now() { return sg4::Engine::get_clock(); }

ActorPaths& paths_of(long pid) {
  auto& all = state().by_pid;
  if (static_cast<size_t>(pid) >= all.size()) all.resize(static_cast<size_t>(pid) + 1);
  return all[static_cast<size_t>(pid)];
}

ActorPaths& mine() { return paths_of(sg4::this_actor::get_pid()); }

// The first stretch of a path: GPU `rank`'s (its kernels' or a stream's) from `start`.
NodePtr first(int rank, bool stream, double start) {
  return std::make_shared<const Node>(rank, stream, PathStep::Via::start, false, start, 0.0,
                                      Transfer{}, nullptr);
}

// The calling actor's path now continues from `from`, handed over at `handed` by
// `transfer` (none: a barrier or a stream).
void take_over(PathStep::Via via, NodePtr from, double handed, bool reverse = false,
               Transfer transfer = {}) {
  ActorPaths& me = mine();
  if (!from || !me.head()) return;
  me.push(std::make_shared<const Node>(me.head()->rank, me.head()->stream, via, reverse, now(),
                                       handed, transfer, std::move(from)));
}

// The transfer's time on idle links (Platform::idle_time); negative where nothing moved.
double on_idle_links(const Transfer& t, const Platform& platform) {
  if (t.from == nullptr || t.to == nullptr || t.bytes <= 0) return -1;
  return platform.idle_time(t.from, t.to, t.bytes, t.rate).value();
}

// "dp.ep#2": a channel, a lane's number ignored.
PathStep::Via via_of(std::string_view name) {
  if (name.substr(0, 2) == "pp") return PathStep::Via::pp;
  if (name.substr(0, 2) == "tp") return PathStep::Via::tp;
  if (name.substr(0, 5) == "dp.ep") return PathStep::Via::ep;
  if (name.substr(0, 5) == "dp.cp") return PathStep::Via::cp;
  return PathStep::Via::dp;
}

// Whether actor `a`'s path was last handed over after actor `b`'s.
bool handed_later(long a, long b) {
  NodePtr ha = paths_of(a).head();
  NodePtr hb = paths_of(b).head(); // copies: paths_of() may grow the table
  return ha && (!hb || ha->start > hb->start);
}

} // namespace

void enable(int ranks) {
  State& s = state();
  s.on = true;
  s.pid_of_rank.assign(static_cast<size_t>(ranks), -1);
}

bool on() { return state().on; }

void start_gpu(int rank) {
  long pid = sg4::this_actor::get_pid();
  state().pid_of_rank[static_cast<size_t>(rank)] = pid;
  paths_of(pid).push(first(rank, false, now()));
}

void posted(const sg4::Comm& comm, bool send, std::string_view channel, double bytes, double rate) {
  Sides& m = state().messages[comm.get_impl()];
  (send ? m.send : m.receive) = {sg4::this_actor::get_pid(), now(), false};
  m.via = via_of(channel);
  if (send) {
    m.bytes = bytes;
    m.rate = rate;
  }
}

void completed(const sg4::Comm& comm, double since) {
  auto& messages = state().messages;
  auto it = messages.find(comm.get_impl());
  if (it == messages.end()) return;
  Sides& m = it->second;
  bool send = m.send.pid == sg4::this_actor::get_pid() && !m.send.done;
  Sides::Side &mine = send ? m.send : m.receive, &other = send ? m.receive : m.send;
  mine.done = true;
  if (now() > since + kTie && other.pid >= 0 && other.posted > mine.posted + kTie)
    take_over(m.via, paths_of(other.pid).at(other.posted, false), other.posted, send,
              {comm.get_source(), comm.get_destination(), m.bytes, m.rate});
  if (other.done) messages.erase(it);
}

Ticket arriving(const void* barrier, int members, std::string_view channel) {
  if (!on()) return {};
  Arrivals& a = state().barriers[barrier];
  // A node's meeting is a barrier of its own, freed after it: its address may come back as
  // another barrier, whose count starts afresh.
  if (a.members != members) a = Arrivals{members};
  long generation = a.count++ / members;
  auto& latest = a.last[static_cast<size_t>(generation % 2)];
  // The generation's first arrival, or a later one. Arrivals at the same time (flows that
  // share links end together): the one whose path was handed over last, whose hand-over says
  // most about what held the step.
  long me = sg4::this_actor::get_pid();
  bool first = a.count - 1 == generation * members;
  if (first || now() > latest.first + kTie ||
      (now() >= latest.first - kTie && handed_later(me, latest.second)))
    latest = {now(), me};
  return {barrier, generation, now(), via_of(channel)};
}

void left(const Ticket& t) {
  if (t.barrier == nullptr) return;
  auto [time, pid] = state().barriers[t.barrier].last[static_cast<size_t>(t.generation % 2)];
  if (time <= t.since + kTie || pid == sg4::this_actor::get_pid()) return;
  take_over(t.via, paths_of(pid).at(time, false), time);
}

void job_starts(int rank, long gpu_pid, double posted) {
  ActorPaths& me = mine();
  if (!me.head()) me.push(first(rank, true, 0.0));
  // Idle when the job was posted: the GPU's post (or the end it queued behind, on the GPU's
  // own timeline) started it; otherwise the stream's own earlier job did.
  if (me.job_end <= posted + kTie)
    take_over(PathStep::Via::stream, paths_of(gpu_pid).at(posted, false), posted);
}

void job_ends() { mine().job_end = now(); }

void joined(long stream_pid, double since) {
  if (now() <= since + kTie) return;
  take_over(PathStep::Via::stream, paths_of(stream_pid).at(now(), true), now());
}

std::vector<PathStep> of_step(const std::vector<RankStats>& ranks, const Platform& platform) {
  const State& s = state();
  // The last to finish; among GPUs that finish together, the one handed over last.
  int last = -1;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (s.pid_of_rank[r] < 0) continue;
    double d = last < 0 ? 1.0
                        : (ranks[r].finish - ranks[static_cast<size_t>(last)].finish).value();
    if (d > kTie || (d >= -kTie && handed_later(s.pid_of_rank[r],
                                                s.pid_of_rank[static_cast<size_t>(last)])))
      last = static_cast<int>(r);
  }
  std::vector<PathStep> out;
  if (last < 0) return out;
  double end = ranks[static_cast<size_t>(last)].finish.value();
  const Node* n = paths_of(s.pid_of_rank[static_cast<size_t>(last)]).head().get();
  for (; n != nullptr; n = n->from.get()) {
    out.push_back({n->rank, n->from ? n->from->rank : -1, n->via, n->stream, n->reverse, n->handed,
                   n->start, end, on_idle_links(n->transfer, platform)});
    end = n->handed;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

} // namespace trainsim::sim::critical_path
