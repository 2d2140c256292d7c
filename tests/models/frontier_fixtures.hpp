// What the frontier's tests share: a small MLP model shape to plan by hand.
#pragma once

#include "models/frontier.hpp"

namespace trainsim::testing {

/// `layers` MLP blocks of d_model 1000 and d_ff 4000 (8e6 parameters each), `batch_tokens`
/// tokens per step.
inline ModelShape small_shape(int layers, double batch_tokens) {
  ModelShape s;
  s.layers = layers;
  s.layer.kind = ModelKind::mlp;
  s.layer.d_model = 1000;
  s.layer.d_ff = 4000;
  s.active_params = s.total_params = 2.0 * 1000 * 4000 * layers;
  s.batch_tokens = batch_tokens;
  return s;
}

} // namespace trainsim::testing
