#include "sim/category.hpp"

namespace trainsim::sim {

const char* name(Category c) {
  switch (c) {
  case Category::compute:
    return "compute";
  case Category::tp_comm:
    return "tp_comm";
  case Category::pp_comm:
    return "pp_comm";
  case Category::dp_comm:
    return "dp_comm";
  case Category::ep_comm:
    return "ep_comm";
  case Category::cp_comm:
    return "cp_comm";
  case Category::offload:
    return "offload";
  case Category::bubble:
    return "bubble";
  case Category::idle:
    return "idle";
  }
  return "?";
}

const char* meaning(Category c) {
  switch (c) {
  case Category::compute:
    return "running kernels: the layers' forward and backward passes (and recomputation), the "
           "embedding, LM head and "
           "optimizer step, each at the roofline of its FLOP and HBM traffic plus the launch "
           "latency.";
  case Category::tp_comm:
    return "blocked in tensor-parallel collectives: each layer's all-reduces, or its all-gathers "
           "and reduce-scatters "
           "with sequence parallelism.";
  case Category::pp_comm:
    return "pipeline transfers: blocked on a receive while its data was moving, or waiting for "
           "this GPU's previous "
           "send in the same direction (at the end, its last sends) to be delivered.";
  case Category::dp_comm:
    return "blocked in data-parallel collectives: the gradient sync after the last backward over "
           "the DP and expert-DP "
           "groups (with ZeRO-1/2 a reduce-scatter, then the parameters' all-gather), ZeRO-3's "
           "per-layer gathers and "
           "reduce-scatters, and the wait for overlapped gradient buckets still running (bucket "
           "time hidden behind "
           "compute is not counted).";
  case Category::ep_comm:
    return "blocked in expert-parallel all-to-alls: each MoE layer's dispatch and combine.";
  case Category::cp_comm:
    return "blocked in context-parallel collectives: each layer's all-gather of the keys and "
           "values over the CP group before its attention core, forward and backward, and the "
           "reduce-scatter of their gradients after the backward.";
  case Category::offload:
    return "blocked on activation offloading (offload_layers): a layer's forward waiting for "
           "earlier layers' activations to reach the host's memory, or its backward for its own "
           "to come back.";
  case Category::bubble:
    return "blocked on a pipeline receive before its data started moving: the neighbouring stage "
           "had not sent it yet.";
  case Category::idle:
    return "after this GPU finished its last operation, until the slowest GPU finished and the "
           "step ended.";
  }
  return "?";
}

} // namespace trainsim::sim
