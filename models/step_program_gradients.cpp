#include "models/step_program_gradients.hpp"

namespace trainsim::program_detail {

GradientCollectives::GradientCollectives(const Scenario& s, int stage)
    : s_(s), stage_(gradient_bytes(s, stage)) {
  if (s.execution.ep > 1) expert_share_ = stage_.experts / (stage_.dense + stage_.experts);
}

std::vector<Op> GradientCollectives::reduction(Bytes bytes) const {
  const ExecutionSpec& e = s_.execution;
  if (e.zero >= 3) return {};
  CollectiveOp op = e.zero >= 1 ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
  auto over = [&](GroupKind group, Bytes b) {
    return Op{OpKind::collective, group, op, true, 1, Seconds(), b};
  };
  std::vector<Op> ops;
  if (e.weight_replicas() > 1 && expert_share_ < 1.0)
    ops.push_back(over(GroupKind::dp, bytes * (1.0 - expert_share_)));
  if (e.dp / e.ep > 1 && expert_share_ > 0.0)
    ops.push_back(over(GroupKind::edp, bytes * expert_share_));
  return ops;
}

std::vector<Op> GradientCollectives::stage_reduction() const {
  return reduction(stage_.dense + stage_.experts);
}

std::vector<Op> GradientCollectives::parameter_gathers() const {
  if (s_.execution.zero != 1 && s_.execution.zero != 2) return {};
  double parameter_bytes = s_.model.bytes_per_word / gradient_word(s_.model, s_.execution);
  return gathers_of((stage_.dense + stage_.experts) * parameter_bytes);
}

std::vector<Op> GradientCollectives::gathers_of(Bytes parameters) const {
  std::vector<Op> ops = reduction(parameters);
  for (Op& op : ops) op.collective = CollectiveOp::all_gather;
  return ops;
}

} // namespace trainsim::program_detail
