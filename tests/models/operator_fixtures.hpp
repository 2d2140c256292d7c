// The tiny layer and the operator lookups the compute-model tests share.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "models/operators.hpp"

namespace trainsim::testing {

/// d_model 8, 2 heads of 4, d_ff 32, sequences of 4 tokens, one layer, BF16: each test sets
/// what it is about (grouped-query attention, the unfused core).
inline ModelSpec tiny_layer() {
  ModelSpec m;
  m.layers = 1;
  m.d_model = 8;
  m.heads = 2;
  m.d_ff = 32;
  m.seq_len = 4;
  return m;
}

/// The operator named `name`, or nullptr.
inline const Operator* find_or_null(const Operators& ops, const std::string& name) {
  for (const Operator& op : ops)
    if (op.name == name) return &op;
  return nullptr;
}

/// The operator named `name`; a test failure (and an empty operator) when there is none.
inline const Operator& find(const Operators& ops, const std::string& name) {
  if (const Operator* op = find_or_null(ops, name)) return *op;
  ADD_FAILURE() << "no operator " << name;
  static const Operator none;
  return none;
}

} // namespace trainsim::testing
