#include "sim/gpu_actor.hpp"

// Which group, algorithm, time category and trace kind each of an op's group kinds means.
namespace trainsim::sim {

TraceEvent::Kind GpuActor::trace_kind(GroupKind group) {
  switch (group) {
  case GroupKind::tp:
  case GroupKind::tp2:
  case GroupKind::etp:
    return TraceEvent::Kind::tp;
  case GroupKind::ep:
    return TraceEvent::Kind::ep;
  case GroupKind::cp:
    return TraceEvent::Kind::cp;
  case GroupKind::dp:
  case GroupKind::edp:
    return TraceEvent::Kind::dp;
  }
  return TraceEvent::Kind::dp;
}

const Group& GpuActor::group(GroupKind kind) const {
  switch (kind) {
  case GroupKind::tp:
    return tp_;
  case GroupKind::dp:
    return dp_;
  case GroupKind::ep:
    return ep_;
  case GroupKind::edp:
    return edp_;
  case GroupKind::cp:
    return cp_;
  case GroupKind::tp2:
    return tp2_;
  case GroupKind::etp:
    return etp_;
  }
  return tp_;
}

const CollectiveAlgorithm& GpuActor::algorithm(GroupKind kind, CollectiveOp op) const {
  switch (kind) {
  case GroupKind::tp:
  case GroupKind::tp2:
  case GroupKind::etp:
    return *plan_.tp_collective;
  case GroupKind::ep:
    return op == CollectiveOp::all_to_all ? *plan_.ep_collective : *plan_.ep_gather_collective;
  case GroupKind::dp:
  case GroupKind::edp:
  case GroupKind::cp: // a CP group spans nodes, as DP's does
    return *plan_.dp_collective;
  }
  return *plan_.tp_collective;
}

Seconds& GpuActor::category(GroupKind kind) {
  switch (kind) {
  case GroupKind::tp:
  case GroupKind::tp2:
  case GroupKind::etp: // an expert's own tensor parallelism
    return stats_[Category::tp_comm];
  case GroupKind::ep:
    return stats_[Category::ep_comm];
  case GroupKind::cp:
    return stats_[Category::cp_comm];
  case GroupKind::dp:
  case GroupKind::edp:
    return stats_[Category::dp_comm];
  }
  return stats_[Category::dp_comm];
}

} // namespace trainsim::sim
