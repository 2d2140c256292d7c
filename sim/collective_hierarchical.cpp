// Two-level collectives for groups that span several NVLink domains.
#include "topologies/topology.hpp"

#include "sim/collective_steps.hpp"

namespace trainsim::sim::detail {
namespace {

/// The ring of this rank's node (member me -> the next member of the same block).
RingView intra_ring(const Group& g, int block, const Inboxes& inboxes,
                    const topo::Topology& topology) {
  int first = g.me - g.me % block;
  int next = g.member(first + (g.me % block + 1) % block);
  return RingView{&inboxes, g.rank(), next, topology.path_latency(g.rank(), next),
                  block_of(g.span(), block, g.me)};
}

/// The ring of the members at this rank's offset in every node.
RingView inter_ring(const Group& g, int block, const Inboxes& inboxes,
                    const topo::Topology& topology) {
  int next = g.member(g.me + block);
  return RingView{&inboxes, g.rank(), next, topology.path_latency(g.rank(), next),
                  across_blocks(g.span(), block, g.me)};
}

// With b members per node and P nodes: (1) ring reduce-scatter among the node's b members,
// b-1 steps of n/b over NVLink; (2) ring all-reduce of that n/b shard among the P members
// with the same local index, 2(P-1) steps of n/(bP) over the network; (3) ring all-gather in
// the node, b-1 steps of n/b:
//   t = 2(b-1)(alpha_node + n/(b B_node)) + 2(P-1)(alpha_net + n/(b P B_net)).
// A reduce-scatter is (1) then the reduce-scatter half of (2); an all-gather is the
// all-gather half of (2) then (3). Within one node, or with one member per node, a plain ring.
// Each phase has its own channel, so a fast rank's next phase never meets a slow one's.
class Hierarchical final : public CollectiveAlgorithm {
protected:
  void run_calls(CollectiveOp op, const Group& g, Bytes bytes, int count,
                 const CollectiveEnv& env) const override {
    int block = node_block(g.span(), env.topology->gpus_per_node());
    if (block == 1 || block == g.size) return ring_->run_repeated(op, g, bytes, count, env);
    phases(op, g, block, bytes.value(), count, env);
  }

private:
  // Fast mode folds `count` back-to-back collectives into each phase's rounds (count is 1 in
  // fine mode); without contention that is the same time as running them one by one.
  void phases(CollectiveOp op, const Group& g, int block, double n, int count,
              const CollectiveEnv& env) const {
    auto [scatter, across, gather] = channels_.get(g.channel, *env.mailboxes);
    const topo::Topology& topology = *env.topology;
    int nodes = g.size / block;
    double shard = n / block;
    if (op != CollectiveOp::all_gather)
      ring_rounds(intra_ring(g, block, *scatter, topology), (block - 1) * count, shard, env);
    ring_rounds(inter_ring(g, block, *across, topology), ring_steps(op, nodes) * count,
                shard / nodes, env);
    if (op != CollectiveOp::reduce_scatter)
      ring_rounds(intra_ring(g, block, *gather, topology), (block - 1) * count, shard, env);
  }

  SubChannels<3> channels_{{"hrs", "hx", "hag"}};
  std::unique_ptr<CollectiveAlgorithm> ring_ = make_ring();
};

} // namespace

std::unique_ptr<CollectiveAlgorithm> make_hierarchical() {
  return std::make_unique<Hierarchical>();
}

} // namespace trainsim::sim::detail
