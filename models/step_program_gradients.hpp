// The gradient reduction and parameter gathers a stage's program runs over DP, and over EDP
// for the experts' share (models/step_program.cpp). Internal to models/.
#pragma once

#include <vector>

#include "models/step_program.hpp"

namespace trainsim::program_detail {

class GradientCollectives {
public:
  GradientCollectives(const Scenario& scenario, int stage);

  /// The reduction of `bytes` of this GPU's gradients: an all-reduce, or a reduce-scatter when
  /// the optimizer state is sharded (ZeRO >= 1); none under ZeRO-3, which reduces layer by
  /// layer. Expert gradients go to the EDP group in proportion to their share of the stage's.
  [[nodiscard]] std::vector<Op> reduction(Bytes bytes) const;
  /// The reduction of all of this stage's gradients.
  [[nodiscard]] std::vector<Op> stage_reduction() const;
  /// ZeRO-1/2's all-gathers of the updated parameter shards, at the model's precision, where
  /// the gradients may be FP32; with fp8_param_gather the layers' weights in FP8.
  [[nodiscard]] std::vector<Op> parameter_gathers() const;
  /// The all-gathers of `parameters` bytes of this GPU's parameters, over the groups that
  /// reduce their gradients.
  [[nodiscard]] std::vector<Op> gathers_of(Bytes parameters) const;

private:
  /// `op` on `dense` bytes over DP and `experts` bytes over EDP, where the stage has such
  /// parameters and the group more than one member.
  [[nodiscard]] std::vector<Op> over_groups(CollectiveOp op, Bytes dense, Bytes experts) const;

  const Scenario& s_;
  int stage_index_;
  GradientBytes stage_;     ///< this stage's gradients, dense and the experts'
  double expert_share_ = 0; ///< of them, the experts' (reduced over EDP, not DP)
};

} // namespace trainsim::program_detail
