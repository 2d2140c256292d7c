#include "models/layout.hpp"

namespace trainsim {

namespace {

bool experts_own(GroupKind kind) {
  return kind == GroupKind::ep || kind == GroupKind::edp || kind == GroupKind::etp;
}

// The ring position of member i (or the member at position i: the map is its own inverse)
// when odd blocks are walked backwards.
int snake(int i, int block) {
  int b = i / block, o = i % block;
  return b * block + (b % 2 == 1 ? block - 1 - o : o);
}

// Member i's place in its block turned by `turn` places (mod the block).
int turned(int i, int block, int turn) {
  return i - i % block + ((i % block + turn) % block + block) % block;
}

} // namespace

int GroupSpan::ring_next(int i, int channel) const {
  i = (i % size + size) % size;
  if (ring_channels() == 1) return (i + 1) % size; // not blocks of a node each: member order
  int b = ring_block;
  int position = snake(turned(i, b, -channel), b);
  return turned(snake((position + 1) % size, b), b, channel);
}

int node_block(const GroupSpan& g, int per_node) {
  if (g.stride >= per_node || per_node % g.stride != 0) return 1;
  int block = per_node / g.stride;
  // The first member must open its node's block, or blocks straddle node boundaries.
  if (g.base % per_node >= g.stride || g.size % block != 0) return 1;
  return block;
}

GroupSpan block_of(const GroupSpan& g, int block, int me) {
  return {g.member(me - me % block), g.stride, block};
}

GroupSpan across_blocks(const GroupSpan& g, int block, int me) {
  return {g.member(me % block), g.stride * block, g.size / block};
}

NestedSpans nested_spans(int tp_2d, int tp_1d, int ep, int pp, double gpus) {
  double y = tp_2d, xy = y * tp_1d, exy = xy * ep;
  return {y, xy, exy, exy * pp, gpus};
}

// Folded (ExecutionSpec::experts_fold()), a stage's ranks, TP ranks and DP replicas alike,
// are the experts' own grid in Megatron-Core's expert rank order: etp innermost (an ETP group
// is etp consecutive ranks), then ep (an EP group takes every etp-th rank), then edp (the
// ranks at the same place in every block of etp x ep).
GroupSpan Layout::folded_span(GroupKind kind, int r) const {
  int stage_base = r - r % (tp_ * dp_), s = r - stage_base, block = etp_ * ep_;
  if (kind == GroupKind::etp) return {r - s % etp_, 1, etp_};
  if (kind == GroupKind::ep) return {r - (s / etp_ % ep_) * etp_, etp_, ep_};
  return {stage_base + s % block, block, tp_ * dp_ / block};
}

GroupSpan Layout::span(GroupKind kind, int r) const {
  if (fold_ && experts_own(kind)) return folded_span(kind, r);
  Coords c = coords(r);
  int dp_base = r - c.dp * tp_; // DP member 0 of this rank's DP group
  switch (kind) {
  case GroupKind::tp:
  case GroupKind::etp: // each expert split as the attention is
    return {r - c.tp + c.tp % y_, y_, tp_ / y_};
  case GroupKind::tp2:
    return {r - c.tp % y_, 1, y_};
  case GroupKind::dp:
    return {dp_base, tp_, dp_};
  case GroupKind::ep:
    return {dp_base + (c.dp - c.dp % ep_) * tp_, tp_, ep_};
  case GroupKind::edp:
    return {dp_base + (c.dp % ep_) * tp_, tp_ * ep_, dp_ / ep_};
  case GroupKind::cp:
    return {dp_base + (c.dp - c.dp % cp_) * tp_, tp_, cp_};
  }
  return {r, 1, 1};
}

int Layout::index_in(GroupKind kind, int r) const {
  if (fold_ && experts_own(kind)) {
    int s = r % (tp_ * dp_);
    if (kind == GroupKind::etp) return s % etp_;
    return kind == GroupKind::ep ? s / etp_ % ep_ : s / (etp_ * ep_);
  }
  Coords c = coords(r);
  switch (kind) {
  case GroupKind::tp:
  case GroupKind::etp:
    return c.tp / y_;
  case GroupKind::tp2:
    return c.tp % y_;
  case GroupKind::dp:
    return c.dp;
  case GroupKind::ep:
    return c.dp % ep_;
  case GroupKind::edp:
    return c.dp / ep_;
  case GroupKind::cp:
    return c.dp % cp_;
  }
  return 0;
}

std::vector<GroupSpan> Layout::spans(GroupKind kind, int stage) const {
  std::vector<GroupSpan> out;
  int first = stage * ranks_per_stage();
  // A group is listed by its member 0; members 0 are the ranks whose index in it is 0.
  for (int r = first; r < first + ranks_per_stage(); ++r)
    if (index_in(kind, r) == 0) out.push_back(span(kind, r));
  return out;
}

int Layout::pipeline_peer(int r, bool forward) const {
  Coords c = coords(r);
  c.pp = (c.pp + (forward ? 1 : pp_ - 1)) % pp_;
  return rank(c);
}

GroupKinds kinds_across_nodes(const ExecutionSpec& e, int gpus_per_node) {
  if (gpus_per_node <= 0) return kAllGroupKinds;
  Layout layout(e);
  GroupKinds out = 0;
  for (GroupKind kind : {GroupKind::tp, GroupKind::dp, GroupKind::ep, GroupKind::edp, GroupKind::cp,
                         GroupKind::tp2, GroupKind::etp}) {
    if (kind == GroupKind::etp && !e.experts_fold()) continue; // the TP group itself
    GroupSpan g = layout.span(kind, 0);
    if (g.member(0) / gpus_per_node != g.member(g.size - 1) / gpus_per_node)
      out |= kinds_bit(kind);
  }
  return out;
}

} // namespace trainsim
