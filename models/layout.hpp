// Where each rank sits in the DP x CP x TP x PP grid, and which ranks form each of its groups.
// TP is innermost (a TP block of tp x tp_2d ranks, the 2-D axis innermost, as the frontier
// nests it) so a TP group shares an NVLink domain, then CP, then DP, then PP
// (Megatron-LM's default order, with CP inside DP as in its tp-cp-ep-dp-pp). EP groups are blocks
// of `ep` consecutive DP members; the expert-data-parallel (EDP) group links the members with the
// same EP index; with the experts folded (etp other than tp) a stage's ranks are the experts' own
// grid, etp innermost (the ETP group: consecutive ranks, each routed expert split over them),
// then EP (a stride of etp), then EDP. The simulator's actors,
// the closed-form bound and the fabric's per-group paths all take their groups from here.
#pragma once

#include <cstdint>
#include <vector>

#include "models/scenario.hpp"

namespace trainsim {

/// Which of a rank's groups a collective talks to. edp: the ranks that hold the same experts
/// (same EP index across the DP group), which reduce expert gradients together.
/// dp: every rank holding the same weights (the DP replicas and their CP ranks, which reduce
/// gradients together); cp: the ranks that split one sequence. tp: Megatron's TP axis (N_K);
/// tp2: the second axis of 2-D tensor parallelism (N_J), innermost. etp: the ranks one routed
/// expert is split over (Megatron-Core's expert tensor parallelism) where that differs from
/// TP's; where it is TP's, the expert block talks to the TP group.
enum class GroupKind : std::uint8_t { tp, dp, ep, edp, cp, tp2, etp };

/// A set of group kinds: bit 1 << kind for each.
using GroupKinds = std::uint8_t;
constexpr GroupKinds kinds_bit(GroupKind kind) {
  return static_cast<GroupKinds>(1u << static_cast<unsigned>(kind));
}
inline constexpr GroupKinds kAllGroupKinds = 0x7f;

/// Either tensor-parallel axis: they share the tp_comm category (each has its overlap stream).
inline bool tensor_parallel(GroupKind g) { return g == GroupKind::tp || g == GroupKind::tp2; }

/// The members base + i * stride, i < size, of one group.
struct GroupSpan {
  int base = 0;
  int stride = 1;
  int size = 1;
  int ring_block = 1; ///< members per node of a rail-aligned ring (node_block()); 1: none
  /// Member i, taken modulo the size (so me + 1 wraps around the ring).
  [[nodiscard]] int member(int i) const { return base + ((i % size + size) % size) * stride; }
  /// The member after member i on the group's ring `channel`. With ring_block > 1 every
  /// other node's members are walked backwards, so that the ring leaves a node from the GPU
  /// with the local index it enters the next node by: NCCL's rail-aligned rings, GPU k of a
  /// node talking to GPU k of the next, whose traffic stays on one rail's switches. Channel c
  /// turns each node's walk by c places, so that it leaves every node from another GPU, and
  /// through another NIC, than channel 0. Otherwise i + 1.
  [[nodiscard]] int ring_next(int i, int channel = 0) const;
  /// The rings a collective over the group runs side by side, a 1/channels share of its
  /// bytes on each: ring_block when the group spans several nodes with several members on
  /// each, so that every member's NIC carries one ring's share out of its node (NCCL builds
  /// a channel per NIC: NVIDIA/nccl issues 471 and 1313), else 1.
  [[nodiscard]] int ring_channels() const {
    return ring_block > 1 && ring_block < size && size % ring_block == 0 ? ring_block : 1;
  }
  friend bool operator==(const GroupSpan&, const GroupSpan&) = default;
};

/// The kinds whose groups span nodes of `gpus_per_node` consecutive ranks: their traffic
/// leaves the NVLink domain, where other groups' traffic meets it. Every group of a kind has
/// the same shape, so rank 0's decides. Nodes unknown (0): every kind.
GroupKinds kinds_across_nodes(const ExecutionSpec& e, int gpus_per_node);

/// Whether whole TP blocks (tp x tp_2d ranks) fill nodes of `gpus_per_node` ranks, each block
/// inside one; false without nodes (0).
inline bool tp_block_in_node(const ExecutionSpec& e, int gpus_per_node) {
  return gpus_per_node > 0 && gpus_per_node % e.tp_ranks() == 0;
}

/// Under 2-D TP, whether each TP block lies inside one node: its two axes' overlapped
/// collectives then share the GPUs' NVLink ports and queue one behind the other
/// (sim/gpu_actor.hpp); across nodes each axis has a stream of its own.
inline bool tp_axes_queue(const ExecutionSpec& e, int gpus_per_node) {
  return e.tp_2d > 1 && tp_block_in_node(e, gpus_per_node);
}

/// Members per node when the group's members on each node of `gpus_per_node` ranks are
/// `block` consecutive members and every node holds the same number; 1 when they are not.
/// The two levels of a hierarchical collective (sim/collective_hierarchical.cpp, and the
/// bound's price of it) split a group into such blocks.
int node_block(const GroupSpan& group, int gpus_per_node);
/// Whether every member of the group is on a node of its own (nodes of `gpus_per_node`
/// consecutive ranks): what NCCL's PAT needs (sim/collective_pat.cpp).
inline bool one_per_node(const GroupSpan& group, int gpus_per_node) {
  return group.size > 1 && group.stride >= gpus_per_node;
}
/// The block of member `me` (its node's members), and the members at me's offset in every block.
GroupSpan block_of(const GroupSpan& group, int block, int me);
GroupSpan across_blocks(const GroupSpan& group, int block, int me);

/// The frontier's rank order (docs/closed-form.md, "One plan"): axes nested innermost first
/// by the bytes each moves per step, tp_2d (d_ff-wide activations), tp_1d, ep, pp, then the
/// data-parallel replicas, so that the busiest groups share an NVLink domain. Layout below is
/// the simulator's order; the frontier lists no ranks, so this gives only how many
/// consecutive ranks a group of each kind spans together with the groups nested inside it,
/// which decides whether it stays in a node (TwoTierFabric::tier_for, models/fabric.hpp).
struct NestedSpans {
  double tp_2d = 1, tp_1d = 1, ep = 1, pp = 1;
  double dp = 1; ///< the replicas' group spans every GPU
};
NestedSpans nested_spans(int tp_2d, int tp_1d, int ep, int pp, double gpus);

struct Coords {
  int tp = 0; ///< index in the TP block: tp_2d index + tp_2d x TP index
  int dp = 0; ///< index among the weight replicas: CP index + cp x DP index
  int pp = 0;
};

class Layout {
public:
  explicit Layout(const ExecutionSpec& e)
      : tp_(e.tp_ranks()), y_(e.tp_2d), dp_(e.weight_replicas()), pp_(e.pp), ep_(e.ep), cp_(e.cp),
        etp_(e.experts_fold() ? e.expert_tp() : e.tp_ranks()), fold_(e.experts_fold()) {}

  [[nodiscard]] Coords coords(int rank) const {
    return {rank % tp_, (rank / tp_) % dp_, rank / (tp_ * dp_)};
  }
  [[nodiscard]] int rank(Coords c) const { return c.tp + tp_ * (c.dp + dp_ * c.pp); }

  /// The group of `kind` that `rank` belongs to, and the rank's index in it.
  [[nodiscard]] GroupSpan span(GroupKind kind, int rank) const;
  [[nodiscard]] int index_in(GroupKind kind, int rank) const;
  /// Every group of `kind` among the ranks of pipeline stage `stage`, each once.
  [[nodiscard]] std::vector<GroupSpan> spans(GroupKind kind, int stage) const;
  /// The rank of the next (forward) or previous pipeline stage at the same TP and DP index;
  /// the last stage's next is the first (interleaving wraps around).
  [[nodiscard]] int pipeline_peer(int rank, bool forward) const;

  [[nodiscard]] int pp() const { return pp_; }
  [[nodiscard]] int ranks_per_stage() const { return tp_ * dp_; }
  /// Ranks of one TP block (tp x tp_2d), the unit the other groups stride by.
  [[nodiscard]] int tp_block() const { return tp_; }

private:
  [[nodiscard]] GroupSpan folded_span(GroupKind kind, int rank) const;

  int tp_, y_, dp_, pp_, ep_, cp_; // tp_: the TP block; y_: its 2-D axis
  int etp_;                        // the ranks one routed expert is split over
  bool fold_; // ETP, EP and EDP over TP x CP x DP (ExecutionSpec::experts_fold())
};

} // namespace trainsim
