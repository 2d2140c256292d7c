// Activation offloading (execution.offload_layers, pp 1), as Transformer Engine's default
// offload schedule runs it: of L layers, each of the first N sends the activations it keeps to
// the host after its forward, and the GPU holds at most L - N layers' at once, so layer j's
// forward first waits for layer j - (L - N)'s copy out (the last layer's, for all of them). In
// the backward each layer done frees room for one reload: layer j's backward starts layer
// j - (L - N)'s, and layer i's backward waits for its own. A direction's copies run in order on
// its stream (sim/host_copies.hpp).
#include "models/step_program_blocks.hpp"
#include "models/workload.hpp"

namespace trainsim::program_detail {

std::optional<Op> offload_wait(const Scenario& s, int layer, bool forward) {
  int n = s.execution.offload_layers, kept = s.model.layers - n;
  // How many of the pass's copies the layer waits for, counted from the first.
  int copies = forward ? layer - kept + 1 : n - layer;
  if (n == 0 || copies <= 0 || copies > n) return std::nullopt;
  return Op{OpKind::wait_copies, GroupKind::tp, CollectiveOp::all_reduce, forward,
            copies == n ? 0 : copies, Seconds(), Bytes()};
}

std::vector<Bytes> offloaded_activations(const Scenario& s) {
  std::vector<Bytes> out;
  for (int layer = 0; layer < s.execution.offload_layers; ++layer)
    out.push_back(layer_activations(s.model, s.execution, layer));
  return out;
}

std::optional<Op> offload_copy(const Scenario& s, const std::vector<Bytes>& offloaded, int layer,
                               bool forward) {
  int n = s.execution.offload_layers;
  int copied = forward ? layer : layer - (s.model.layers - n);
  if (n == 0 || copied < 0 || copied >= n) return std::nullopt;
  Bytes b = offloaded[static_cast<size_t>(copied)];
  return Op{OpKind::start_copy, GroupKind::tp, CollectiveOp::all_reduce, forward, 1,
            b / s.system.gpu.host_memory_bandwidth, b};
}

} // namespace trainsim::program_detail
