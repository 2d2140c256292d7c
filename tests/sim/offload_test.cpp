// Activation offloading (execution.offload_layers): its rules, its memory, its program and
// what its copies cost in the simulated step.
#include "tests/sim/step_fixtures.hpp"

#include <algorithm>
#include <vector>

#include "models/step_program.hpp"
#include "models/workload.hpp"

namespace trainsim {
namespace {

using namespace testing;

// One GPU (a one-node fat tree), the paper's MLP blocks, one sequence: each layer's
// forward is one kernel, and nothing else runs beside the copies.
Scenario one_gpu(int layers, int offload, BytesPerSecond host = BytesPerSecond(64e9)) {
  GpuSpec chip = gpu();
  chip.host_memory_bandwidth = host;
  Scenario s = scenario(fat_tree(1, 1), {.dp = 1, .global_batch = 1}, mlp(layers), chip);
  s.execution.offload_layers = offload;
  return s;
}

TEST(Offload, RefusesWhatMegatronCoreRefuses) {
  Scenario s = one_gpu(4, 4);
  EXPECT_EQ(refusal(s), "test.yaml: execution.offload_layers = '4': must be below the model's "
                        "layers (4): the last layer's activations stay on the GPU");
  s = one_gpu(4, 2);
  s.execution.pp = 2, s.execution.global_batch = 2;
  EXPECT_EQ(refusal(s), "test.yaml: execution.offload_layers = '2': needs pp 1 (pp is 2): "
                        "Megatron-Core offloads no activations under pipeline parallelism");
  s = one_gpu(4, 2);
  s.execution.recompute = Recompute::full;
  EXPECT_EQ(refusal(s), "test.yaml: execution.offload_layers = '2': needs recompute: none "
                        "(Megatron-Core offloads no activations beside recomputation)");
  EXPECT_EQ(refusal(one_gpu(4, 3)), "accepted");
}

TEST(Offload, TheGpuHoldsOnlyTheLayersItKeeps) {
  // 8 equal layers, 6 offloaded: the forward's end holds the last 2, a quarter of the 8 a
  // GPU without offloading holds; each layer keeps layer_activations() of them.
  Scenario kept = one_gpu(8, 0), offloaded = one_gpu(8, 6);
  Bytes all = memory_per_gpu(kept.model, kept.execution, kept.system.gpu).activations;
  Bytes two = memory_per_gpu(offloaded.model, offloaded.execution, offloaded.system.gpu).activations;
  ASSERT_GT(all.value(), 0.0);
  EXPECT_NEAR(two.value(), all.value() * 2.0 / 8.0, 1e-9 * all.value());
  EXPECT_NEAR(layer_activations(kept.model, kept.execution, 0).value() * 8, all.value(),
              1e-9 * all.value());
}

// Each copy or copy wait of the program as "L<layer> out|in|waitOut[:N]|waitIn[:N]", in order.
std::vector<std::string> copies(const Program& p) {
  std::vector<std::string> out;
  for (const Op& op : p) {
    std::string dir = op.forward ? "Out" : "In";
    if (op.kind == OpKind::start_copy)
      out.push_back("L" + std::to_string(op.layer) + (op.forward ? " out" : " in"));
    if (op.kind == OpKind::wait_copies)
      out.push_back("L" + std::to_string(op.layer) + " wait" + dir +
                    (op.count == 0 ? "" : ":" + std::to_string(op.count)));
  }
  return out;
}

TEST(Offload, CopiesFollowTransformerEnginesSchedule) {
  // 4 layers, the first 2 offloaded: at most 4 - 2 = 2 layers' activations on the GPU. Forward:
  // layers 0 and 1 copy out after their kernels; layer 2 first waits for layer 0's copy (the
  // first of the pass's: waitOut:1), layer 3 for all (waitOut). Backward, from layer 3: layer
  // 3's end starts layer 3 - 2 = 1's reload, layer 2's layer 0's; layer 1 waits for the first
  // reload (waitIn:1), layer 0 for both (waitIn).
  Program p = stage_program(one_gpu(4, 2), 0, false);
  EXPECT_EQ(copies(p), (std::vector<std::string>{"L0 out", "L1 out", "L2 waitOut:1", "L3 waitOut",
                                                 "L3 in", "L2 in", "L1 waitIn:1", "L0 waitIn"}));
  // A wait opens its layer's ops, a copy closes them.
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i].kind == OpKind::wait_copies) {
      EXPECT_NE(p[i - 1].layer, p[i].layer) << i;
    }
    if (p[i].kind == OpKind::start_copy) {
      EXPECT_NE(p[i + 1].layer, p[i].layer) << i;
    }
  }
  // Fast mode keeps them where they are.
  EXPECT_EQ(copies(fast_program(one_gpu(4, 2), p, 1)), copies(p));
}

TEST(Offload, ACopySlowerThanALayerShowsAsOffloadTime) {
  // 2 layers, the first offloaded, at a host link slow enough that each copy takes a = 1 s,
  // longer than anything else: layer 1's forward waits for layer 0's copy out, which started
  // when layer 0's forward ended (a), and layer 0's backward for its reload, which started
  // when layer 1's backward ended (a). The step grows by 2a, all of it offload, in either
  // mode.
  Scenario s = one_gpu(2, 1);
  Bytes b = layer_activations(s.model, s.execution, 0);
  s.system.gpu.host_memory_bandwidth = BytesPerSecond(b.value()); // a = 1 s
  Scenario none = one_gpu(2, 0);
  for (sim::Fidelity f : {sim::Fidelity::fast, sim::Fidelity::fine}) {
    Outcome base = simulate(none, f), with = simulate(s, f);
    EXPECT_NEAR(with.result.step_time.value() - base.result.step_time.value(), 2.0, 1e-6);
    EXPECT_NEAR(category(with.summary, "offload"), 2.0, 1e-6);
    EXPECT_NEAR(category(with.summary, "compute"), category(base.summary, "compute"), 1e-9);
  }
}

TEST(Offload, CopiesFasterThanALayerAreHidden) {
  // 8 layers, 4 offloaded, at a host link where a copy takes about a tenth of a layer's
  // forward: a layer's forward and backward take three forwards' time, so the step's compute
  // over 8 x 3 is about one forward (a little more: the optimizer step). Every copy then ends
  // long before the layer that waits for it, L - N = 4 layers later, and none shows.
  Scenario none = one_gpu(8, 0);
  Outcome base = simulate(none);
  double forward = base.result.ranks[0][sim::Category::compute].value() / (8 * 3.0);
  Bytes b = layer_activations(none.model, none.execution, 0);
  Outcome with = simulate(one_gpu(8, 4, BytesPerSecond(b.value() / (forward / 10))));
  EXPECT_NEAR(with.result.step_time.value(), base.result.step_time.value(),
              1e-9 * base.result.step_time.value());
  EXPECT_EQ(category(with.summary, "offload"), 0.0);
}

} // namespace
} // namespace trainsim
