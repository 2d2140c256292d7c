// Where each rank sits in the DP x TP x PP grid. TP is innermost so a TP group shares an
// NVLink domain, then DP, then PP (Megatron-LM's default order).
#pragma once

#include <vector>

#include "models/scenario.hpp"

namespace trainsim::sim {

struct Coords {
  int tp = 0;
  int dp = 0;
  int pp = 0;
};

class Layout {
public:
  explicit Layout(const ExecutionSpec& e) : tp_(e.tp), dp_(e.dp), pp_(e.pp) {}

  [[nodiscard]] Coords coords(int rank) const { return {rank % tp_, (rank / tp_) % dp_, rank / (tp_ * dp_)}; }
  [[nodiscard]] int rank(Coords c) const { return c.tp + tp_ * (c.dp + dp_ * c.pp); }

  /// Ranks of the TP group, DP group and pipeline that `rank` belongs to, in group order.
  [[nodiscard]] std::vector<int> tp_group(int rank) const;
  [[nodiscard]] std::vector<int> dp_group(int rank) const;

  [[nodiscard]] int pp() const { return pp_; }

private:
  int tp_, dp_, pp_;
};

} // namespace trainsim::sim
