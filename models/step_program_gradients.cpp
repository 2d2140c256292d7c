#include "models/step_program_gradients.hpp"

#include "models/workload_parts.hpp"

namespace trainsim::program_detail {

GradientCollectives::GradientCollectives(const Scenario& s, int stage)
    : s_(s), stage_index_(stage), stage_(gradient_bytes(s, stage)) {
  if (s.execution.ep > 1) expert_share_ = stage_.experts / (stage_.dense + stage_.experts);
}

std::vector<Op> GradientCollectives::reduction(Bytes bytes) const {
  const ExecutionSpec& e = s_.execution;
  if (e.zero >= 3) return {};
  CollectiveOp op = e.zero >= 1 ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
  return over_groups(op, bytes * (1.0 - expert_share_), bytes * expert_share_);
}

std::vector<Op> GradientCollectives::over_groups(CollectiveOp op, Bytes dense,
                                                 Bytes experts) const {
  const ExecutionSpec& e = s_.execution;
  auto over = [op](GroupKind group, Bytes b) {
    return Op{OpKind::collective, group, op, true, 1, Seconds(), b};
  };
  std::vector<Op> ops;
  if (e.weight_replicas() > 1 && expert_share_ < 1.0) ops.push_back(over(GroupKind::dp, dense));
  if (e.expert_replicas() > 1 && expert_share_ > 0.0) ops.push_back(over(GroupKind::edp, experts));
  return ops;
}

std::vector<Op> GradientCollectives::stage_reduction() const {
  return reduction(stage_.dense + stage_.experts);
}

std::vector<Op> GradientCollectives::parameter_gathers() const {
  const ExecutionSpec& e = s_.execution;
  if (e.zero != 1 && e.zero != 2) return {};
  Bytes gradient = gradient_word(s_.model, e);
  if (!e.fp8_param_gather)
    return gathers_of((stage_.dense + stage_.experts) * (s_.model.bytes_per_word / gradient));
  // The layers' weights in FP8; the embedding and LM head (dense) at the model's word.
  double vocabulary = workload_parts::vocabulary_params(s_.model, e, stage_index_);
  double layers = stage_.dense / gradient - vocabulary, experts = stage_.experts / gradient;
  Bytes word = gathered_parameter_word(s_.model, e);
  return over_groups(CollectiveOp::all_gather, word * layers + s_.model.bytes_per_word * vocabulary,
                     word * experts);
}

std::vector<Op> GradientCollectives::gathers_of(Bytes parameters) const {
  std::vector<Op> ops = reduction(parameters);
  for (Op& op : ops) op.collective = CollectiveOp::all_gather;
  return ops;
}

} // namespace trainsim::program_detail
