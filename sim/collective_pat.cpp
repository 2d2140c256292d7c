// NCCL's PAT, Parallel Aggregated Trees (S. Jeaugey, "PAT: a new algorithm for all-gather and
// reduce-scatter operations at scale", arXiv:2506.20252, 2025; in NCCL since 2.23 for
// communicators with one rank per node): an all-gather in a logarithmic number of steps that
// sends its smallest messages the farthest. With buffers enough for the whole aggregation, as
// here, it is the dimension-reversed Bruck all-gather.
//
// K = ceil(log2 p) steps. In step s = 0..K-1 each member sends the blocks it holds to the
// member d = 2^(K-1-s) places back and receives as many from the member d places ahead.
// Before step s a member holds the blocks of the members j 2^(K-s) places ahead of it (j >= 0,
// the place below p); it receives those whose place plus d is below p, a_s = ceil((p - d) / 2d)
// of them (models/collective_cost.hpp: pat_blocks), and afterwards holds every block j 2^(K-s-1)
// places ahead. Every block arrives once: sum a_s = p - 1. A reduce-scatter runs the same
// steps backwards in time, each partial sum travelling toward its owner; an all-reduce is a
// reduce-scatter and an all-gather. Without contention, with path latency alpha and bandwidth B:
//   t = phases x (K alpha + (p - 1) n / (p B)).
// Each step has its own inboxes (one sender per receiver), so a member a step ahead never
// meets a receive meant for the step before.
//
// NCCL runs PAT only with one rank per node; inside a node, or with several members per node,
// this runs the ring, as NCCL's tuner would.
#include <deque>
#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

#include "models/collective_cost.hpp"
#include "sim/collective_steps.hpp"
#include "topologies/topology.hpp"

namespace trainsim::sim::detail {
namespace {

namespace sg4 = simgrid::s4u;

class Pat final : public CollectiveAlgorithm {
protected:
  void run_calls(CollectiveOp op, const Group& g, Bytes bytes, int count,
                 const CollectiveEnv& env) const override {
    if (!one_per_node(g.span(), env.topology->gpus_per_node()))
      return ring_->run_repeated(op, g, bytes, count, env);
    const Steps& inboxes = steps_of(g.channel, *env.mailboxes, pat_steps(g.size));
    double block = bytes.value() / g.size;
    if (op != CollectiveOp::all_gather)
      for (int s = pat_steps(g.size) - 1; s >= 0; --s)
        step(g, *inboxes.scatter[static_cast<size_t>(s)], s, +1, block, count, env);
    if (op != CollectiveOp::reduce_scatter)
      for (int s = 0; s < pat_steps(g.size); ++s)
        step(g, *inboxes.gather[static_cast<size_t>(s)], s, -1, block, count, env);
  }

private:
  /// One step of `count` calls: a_s blocks each to the member d places away in `direction`
  /// (-1: back, the all-gather's; +1: ahead, the reduce-scatter's), and as many from the other
  /// side. Fast mode moves the calls' blocks as one flow and waits out the other calls'
  /// latencies on the path first, as ring_rounds() does.
  static void step(const Group& g, const Inboxes& inboxes, int s, int direction, double block,
                   int count, const CollectiveEnv& env) {
    int to = g.member(g.me + direction * pat_distance(g.size, s));
    if (count > 1)
      sg4::this_actor::sleep_for((count - 1) * env.topology->path_latency(g.rank(), to).value());
    sg4::CommPtr out = send(inboxes, to, pat_blocks(g.size, s) * block * count, env);
    sg4::CommPtr in = receive(inboxes, g.rank());
    wait_on(in, kReceiving);
    wait_on(out, kSending);
  }

  struct Steps {
    const Mailboxes* mailboxes = nullptr;
    std::string channel;
    std::vector<const Inboxes*> gather, scatter; ///< by step
  };

  /// The inboxes of each step of each phase of `channel`, looked up once: building their
  /// names on every call would allocate in the hot path. Single-threaded like SimGrid.
  const Steps& steps_of(const std::string& channel, Mailboxes& mailboxes, int steps) const {
    for (const Steps& e : cache_)
      if (e.mailboxes == &mailboxes && e.channel == channel &&
          e.gather.size() >= static_cast<size_t>(steps))
        return e;
    Steps e{&mailboxes, channel, {}, {}};
    for (int s = 0; s < steps; ++s) {
      e.gather.push_back(&mailboxes.channel(channel + ".pg" + std::to_string(s)));
      e.scatter.push_back(&mailboxes.channel(channel + ".ps" + std::to_string(s)));
    }
    return cache_.emplace_back(std::move(e));
  }

  mutable std::deque<Steps> cache_; // a deque: references stay valid as entries are added
  std::unique_ptr<CollectiveAlgorithm> ring_ = make_ring();
};

} // namespace

std::unique_ptr<CollectiveAlgorithm> make_pat() { return std::make_unique<Pat>(); }

} // namespace trainsim::sim::detail
