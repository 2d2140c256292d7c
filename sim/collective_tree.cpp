// Double binary tree all-reduce (NCCL's "tree" algorithm).
//
// Tree 0 is the binary tree on positions 0..p-1 where a position r > 0 with lowest set bit b
// has children r - b/2 and the largest r + b/2^k below p, and height log2(b) (odd positions
// are leaves); position 0 is the root, with the single child bit_floor(p-1). Tree 1 mirrors it
// (member i at position p-1-i) for even p and shifts it by one (position i-1) for odd p, so
// every member is a leaf of one tree and an inner node of at most the other. Each tree reduces
// half of the data up to its root and broadcasts it back down.
//
// Pipelining (fine mode): each half is cut into C segments (one per MiB, 1 <= C <= 64). In step
// s, a node of height h sends segment s-h to its parent (having received it from its children
// in earlier steps), the root of height H turns segment k around in step H+k, and a node at depth
// d forwards segment s-H-d to its children. All streams are on for C consecutive steps, and the
// last segment reaches the deepest leaf in step 2H+C-2, so a rank waits for its own step's
// sends and receives, step after step, S = 2H + C - 1 times, H = ceil(log2 p):
//   t = S alpha + (sum over steps of k_s) c / B,   c = n / (2C),
// k_s being the most segments any rank sends or receives in step s (so they share its link).
// In the steady state an inner node sends 4 segments per step (one up and two down in its
// inner tree, one up in its leaf tree) and receives 4, so sum k_s = 4C + O(H): for large C,
// t -> (2H + C) alpha + 2n/B, the pipelined double-tree bound (each rank sends and receives
// 2n in all, like a ring's 2n(p-1)/p).
//
// Fast mode: one flow per tree edge per direction, all at once, after waiting S-1 latencies.
// The flows are scaled so that the busiest rank's link carries the same sum k_s c as in fine
// mode: (sum k_s) / (C L) of each half, L being the most streams on one rank's link. The
// latency waited is that of this rank's path to the root, both ways, plus C-1 steps at its
// slowest edge. Exact without contention when every tree edge has the same bandwidth and
// latency (one NVLink domain, or one NIC per GPU); an estimate where they mix.
#include <algorithm>
#include <bit>
#include <cmath>
#include <map>

#include <simgrid/s4u.hpp>

#include "models/collective_cost.hpp"
#include "sim/collective_steps.hpp"
#include "topologies/topology.hpp"

namespace trainsim::sim::detail {
namespace {

namespace sg4 = simgrid::s4u;

int segments(double half) { return tree_segments(Bytes(half)); }

// ---- The binary tree on positions 0..p-1 (NCCL's ncclGetBtree) ----

int root_child(int p) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(p - 1))); }
int lowbit(int r) { return r & -r; }

int parent_of(int r, int p) {
  if (r == 0) return -1;
  int bit = lowbit(r);
  int up = (r ^ bit) | (bit << 1);
  return up < p ? up : r ^ bit;
}

/// Children of r, smaller first; returns how many (0 to 2).
int children_of(int r, int p, int out[2]) {
  if (r == 0) {
    out[0] = root_child(p);
    return 1;
  }
  int low = lowbit(r) >> 1;
  if (low == 0) return 0;
  out[0] = r - low;
  for (int l = low; l > 0; l >>= 1)
    if (r + l < p) {
      out[1] = r + l;
      return 2;
    }
  return 1;
}

int log2_of(int power_of_two) { return std::countr_zero(static_cast<unsigned>(power_of_two)); }

/// Steps from the deepest leaf below r: log2 of r's lowest set bit (its left subtree is full).
int height_of(int r, int p) { return r == 0 ? 1 + log2_of(root_child(p)) : log2_of(lowbit(r)); }

int depth_of(int r, int p) {
  int d = 0;
  for (; r != 0; r = parent_of(r, p)) ++d;
  return d;
}

/// Member index <-> position in tree `t`.
int position(int member, int t, int p) {
  if (t == 0) return member;
  return p % 2 == 0 ? p - 1 - member : (member - 1 + p) % p;
}
int member_at(int pos, int t, int p) {
  if (t == 0) return pos;
  return p % 2 == 0 ? p - 1 - pos : (pos + 1) % p;
}

// ---- One rank's streams: a stream is one neighbour, one direction, C consecutive steps ----

enum Channel { up0, up1, down }; // receiver's view: from child 0, from child 1, from parent

struct Stream {
  int peer = 0; ///< member index of the other end
  bool sending = false;
  int tree = 0;
  Channel channel = down;
  int start = 0; ///< first step
};

/// Appends this member's streams in tree `t` (see the file comment for the step rule).
void add_streams(int me, int t, int p, std::vector<Stream>& out) {
  int pos = position(me, t, p), top = height_of(0, p);
  int parent = parent_of(pos, p), depth = depth_of(pos, p), kids[2] = {0, 0};
  int n = children_of(pos, p, kids);
  if (parent >= 0) {
    Channel slot = parent == 0 || pos < parent ? up0 : up1; // the parent's first or second child
    out.push_back({member_at(parent, t, p), true, t, slot, height_of(pos, p)});
    out.push_back({member_at(parent, t, p), false, t, down, top + depth - 1});
  }
  for (int j = 0; j < n; ++j) {
    out.push_back({member_at(kids[j], t, p), false, t, j == 0 ? up0 : up1, height_of(kids[j], p)});
    out.push_back({member_at(kids[j], t, p), true, t, down, top + depth});
  }
}

std::vector<Stream> streams_of(int me, int p) {
  std::vector<Stream> out;
  out.reserve(12);
  add_streams(me, 0, p, out);
  add_streams(me, 1, p, out);
  return out;
}

/// What fast mode needs to reproduce fine mode's pipeline on the busiest link.
struct Shape {
  double sum_busiest = 0; ///< sum over steps of the most segments a rank sends or receives then
  int most_streams = 0;   ///< the most streams on one rank's link in one direction
};

Shape shape_of(int p, int c) {
  int steps = 2 * height_of(0, p) + c - 1;
  std::vector<int> busiest(static_cast<size_t>(steps), 0);
  std::vector<int> load[2] = {busiest, busiest}; // this rank's segments per step: received, sent
  Shape shape;
  for (int me = 0; me < p; ++me) {
    int streams[2] = {0, 0};
    for (auto& l : load) std::fill(l.begin(), l.end(), 0);
    for (const Stream& s : streams_of(me, p)) {
      streams[s.sending] += 1;
      for (int k = 0; k < c; ++k) load[s.sending][static_cast<size_t>(s.start + k)] += 1;
    }
    for (size_t s = 0; s < busiest.size(); ++s)
      busiest[s] = std::max({busiest[s], load[0][s], load[1][s]});
    shape.most_streams = std::max({shape.most_streams, streams[0], streams[1]});
  }
  for (int k : busiest) shape.sum_busiest += k;
  return shape;
}

/// Fast mode's stand-in for fine mode's step latencies.
struct Latency {
  double pipeline = 0;     ///< seconds of latency on this rank's critical path
  double slowest_edge = 0; ///< seconds
};

class Tree final : public CollectiveAlgorithm {
public:
  [[nodiscard]] bool runs_alone_in_node() const override { return false; }

protected:
  void run_calls(CollectiveOp /*op*/, const Group& g, Bytes bytes, int count,
                 const CollectiveEnv& env) const override {
    auto inboxes = channels_.get(g.channel, *env.mailboxes);
    std::vector<Stream> streams = streams_of(g.me, g.size);
    double half = bytes.value() / 2;
    int c = segments(half);
    if (env.fidelity == Fidelity::fine) return pipeline(g, streams, inboxes, c, half / c, env);
    const Shape& shape = shape_cached(g.size, c);
    // The flows pay one latency themselves (about the slowest edge's).
    Latency alpha = path_latency(g, c, *env.topology);
    sg4::this_actor::sleep_for(std::max(0.0, count * alpha.pipeline - alpha.slowest_edge));
    double flow = half * shape.sum_busiest / (c * shape.most_streams);
    post_all(
        g, streams, inboxes, [](const Stream&) { return true; }, flow * count, env);
  }

private:
  using Channels = std::array<const Inboxes*, 6>;

  static const Inboxes& inboxes_of(const Channels& all, const Stream& s) {
    return *all[static_cast<size_t>(3 * s.tree + s.channel)];
  }

  /// Posts the selected streams' comms of `bytes` each and waits for them all.
  template <class Pick>
  static void post_all(const Group& g, const std::vector<Stream>& streams, const Channels& all,
                       Pick pick, double bytes, const CollectiveEnv& env) {
    sg4::CommPtr comms[12];
    const char* verbs[12];
    size_t n = 0;
    for (const Stream& s : streams) {
      if (!pick(s)) continue;
      const Inboxes& inboxes = inboxes_of(all, s);
      comms[n] =
          s.sending ? send(inboxes, g.member(s.peer), bytes, env) : receive(inboxes, g.rank());
      verbs[n++] = s.sending ? kSending : kReceiving;
    }
    for (size_t i = 0; i < n; ++i) wait_on(comms[i], verbs[i]);
  }

  static void pipeline(const Group& g, const std::vector<Stream>& streams, const Channels& all,
                       int c, double segment, const CollectiveEnv& env) {
    int steps = 2 * height_of(0, g.size) + c - 1;
    for (int step = 0; step < steps; ++step)
      post_all(
          g, streams, all, [&](const Stream& s) { return s.start <= step && step < s.start + c; },
          segment, env);
  }

  /// Fine mode's latency for this rank: its segments climb to the root and come back, one
  /// step per edge (2 x the path's latencies), and the other C-1 segments follow one step each,
  /// at the slowest edge's latency. The larger of the two trees; the deepest leaves wait longest.
  static Latency path_latency(const Group& g, int c, const topo::Topology& topology) {
    Latency worst;
    for (int t = 0; t < 2; ++t) {
      Latency l;
      for (int pos = position(g.me, t, g.size); pos != 0; pos = parent_of(pos, g.size)) {
        int from = g.member(member_at(pos, t, g.size)),
            to = g.member(member_at(parent_of(pos, g.size), t, g.size));
        double a = topology.path_latency(from, to).value();
        l.pipeline += 2 * a;
        l.slowest_edge = std::max(l.slowest_edge, a);
      }
      l.pipeline += (c - 1) * l.slowest_edge;
      if (l.pipeline > worst.pipeline) worst.pipeline = l.pipeline;
      worst.slowest_edge = std::max(worst.slowest_edge, l.slowest_edge);
    }
    return worst;
  }

  const Shape& shape_cached(int p, int c) const {
    auto [it, added] = shapes_.try_emplace({p, c});
    if (added) it->second = shape_of(p, c);
    return it->second;
  }

  SubChannels<6> channels_{{"t0u0", "t0u1", "t0d", "t1u0", "t1u1", "t1d"}};
  // O(p S) to compute, so once per (group size, segment count); single-threaded like SimGrid.
  mutable std::map<std::pair<int, int>, Shape> shapes_;
};

} // namespace

std::unique_ptr<CollectiveAlgorithm> make_tree() { return std::make_unique<Tree>(); }

} // namespace trainsim::sim::detail
