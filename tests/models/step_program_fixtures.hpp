// What the program tests share (models/step_program): ops written as tokens, and small scenarios.
//
// Ops are written as tokens: C compute, recvF/recvB and sendF/sendB pipeline transfers of an
// activation (F) or a gradient (B), waitS wait_sends, waitC wait_collectives (waitT on the TP
// streams, waitT:N for the first N on the first axis's, waitT2:N on the second's), and
// collectives as GROUP.OP (tp.AR, tp2.AR, dp.RS, dp.AG, ep.A2A, edp.AR, cp.AG, etp.AG), "start:"
// for a background one, "*N" for a count N > 1; activation offloading's copyOut/copyIn and
// waitOut/waitIn (":N" for the first N).
#pragma once

#include <string>

#include "models/scenario.hpp"
#include "models/step_program.hpp"

namespace trainsim::program_testing {

/// A group kind as the tokens write it: tp, dp, ep, edp, cp, tp2 or etp.
inline const char* group_name(GroupKind kind) {
  static const char* const groups[] = {"tp", "dp", "ep", "edp", "cp", "tp2", "etp"};
  return groups[static_cast<int>(kind)];
}

inline std::string collective(const Op& op) {
  static const char* const ops[] = {"AR", "RS", "AG", "A2A"};
  std::string out = group_name(op.group);
  out.append(".").append(ops[static_cast<int>(op.collective)]);
  if (op.count > 1) out.append("*").append(std::to_string(op.count));
  return out;
}

inline std::string token(const Op& op) {
  switch (op.kind) {
  case OpKind::compute:
    return "C";
  case OpKind::weight_gradients:
    return "W";
  case OpKind::collective:
    return collective(op);
  case OpKind::start_collective:
    return std::string("start:").append(collective(op));
  case OpKind::wait_collectives:
    if (op.group == GroupKind::tp2) return "waitT2:" + std::to_string(op.count);
    if (op.group != GroupKind::tp)
      return op.count == 0 ? "waitC" : "waitC:" + std::to_string(op.count);
    return op.count == 0 ? "waitT" : "waitT:" + std::to_string(op.count);
  case OpKind::recv:
    return op.forward ? "recvF" : "recvB";
  case OpKind::send:
    return op.forward ? "sendF" : "sendB";
  case OpKind::wait_sends:
    return "waitS";
  case OpKind::start_copy:
    return op.forward ? "copyOut" : "copyIn";
  case OpKind::wait_copies:
    return std::string(op.forward ? "waitOut" : "waitIn") +
           (op.count == 0 ? "" : ":" + std::to_string(op.count));
  }
  return "?";
}

inline std::string shape(const Program& program) {
  std::string out;
  for (const Op& op : program) {
    if (!out.empty()) out += ' ';
    out += token(op);
  }
  return out;
}

/// A tiny model (d_model 8, d_ff 32, 4 tokens per microbatch) on the default H100 figures,
/// priced as a roofline: one kernel per block (the per-operator model's extra kernels outside
/// the layers are tested on their own below).
inline Scenario scenario(ModelKind kind, int layers, const ExecutionSpec& e) {
  Scenario s;
  s.model.kind = kind;
  s.model.compute = ComputeModel::roofline;
  s.model.layers = layers;
  s.model.d_model = 8;
  s.model.d_ff = 32;
  s.model.heads = 2;
  s.model.seq_len = 4;
  s.execution = e;
  return s;
}

inline ExecutionSpec grid(int dp, int tp, int pp, long microbatches) {
  ExecutionSpec e;
  e.dp = dp, e.tp = tp, e.pp = pp;
  e.global_batch = dp * microbatches;
  return e;
}

} // namespace trainsim::program_testing
