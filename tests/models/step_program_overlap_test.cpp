// Transformer Engine's TP overlap and 2-D tensor parallelism in a stage's program
// (models/step_program_overlap.cpp), in the tokens of step_program_fixtures.hpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/step_compute.hpp"
#include "models/workload.hpp"
#include "models/step_program.hpp"

#include "step_program_fixtures.hpp"

namespace trainsim {
namespace {

using namespace program_testing;

TEST(Program, TpOverlapPipelinesEachBlocksKernelWithItsCollective) {
  // tp_overlap splits a block's kernel and its all-reduce in tp_overlap_splits k (4, TE's
  // default, then 2): each kernel split starts its split of the collective (bytes / k) on the
  // TP stream, and the block ends by waiting for all of them. One MLP layer: forward, then
  // backward, one block each. The backward (two roofline kernels: input and weight gradients
  // of two equal matmuls) leaves the first matmul's weight gradient (half a kernel) out of its
  // splits: it follows them, beside the collective's last split. Folded, each pass is one
  // pipeline of k splits: one layer folds to its own program.
  for (int k : {4, 2}) {
    ExecutionSpec e = grid(1, 2, 1, 1);
    e.tp_overlap = true;
    e.tp_overlap_splits = k;
    Scenario s = scenario(ModelKind::mlp, 1, e);
    std::string block = "C start:tp.AR";
    for (int j = 1; j < k; ++j) block += " C start:tp.AR";
    Program p = stage_program(s, 0, false);
    ASSERT_EQ(shape(p), block + " waitT " + block + " W waitT waitS");
    LayerCosts c = layer_costs(s.model, s.execution);
    const double kernel = kernel_time(c.mlp, s.system.gpu).value();
    EXPECT_DOUBLE_EQ(p[0].duration.value(), kernel / k);
    EXPECT_EQ(p[1].bytes, c.tp_allreduce / static_cast<double>(k));
    const auto backward = static_cast<size_t>(2 * k + 1), weights = backward + 2 * k;
    EXPECT_DOUBLE_EQ(p[backward].duration.value(), 1.5 * kernel / k); // (2 - 0.5 kernels) / k
    EXPECT_DOUBLE_EQ(p[weights].duration.value(), 0.5 * kernel);      // up's weight gradient
    EXPECT_EQ(shape(stage_program(s, 0, true)), shape(p));
  }
  // Sequence parallelism over tp 4, 4 splits (Transformer Engine's ring exchange, one split
  // per shard): the all-gathers before the kernel go first; the kernel's first split runs on
  // the GPU's own shard, split j waits for the gathers' first j splits
  // (gathered_splits_needed: ceil(j + 1 - 4 / 4) = j; the backward gathers twice: 2 per
  // split).
  Scenario s = scenario(ModelKind::mlp, 1, grid(1, 4, 1, 1));
  s.execution.tp_overlap = s.execution.sequence_parallel = true;
  Program p = stage_program(s, 0, false);
  const std::string gathers = "start:tp.AG start:tp.AG start:tp.AG start:tp.AG";
  const std::string forward = gathers + " C start:tp.RS waitT:1 C start:tp.RS waitT:2 C start:tp.RS"
                                        " waitT:3 C start:tp.RS waitT";
  ASSERT_EQ(shape(p).rfind(forward + " " + gathers + " " + gathers + " C start:tp.RS waitT:2 C", 0),
            0u)
      << shape(p);
  // Folded, a pass of identical blocks is one block with each kernel split as long as all the
  // blocks' and each collective repeated as often: one layer folds to its own program, two
  // layers to the same shape with every stream entry two collectives (each pass is one
  // block of the MLP layer, so its blocks repeat once per layer).
  EXPECT_EQ(shape(stage_program(s, 0, true)), shape(p));
  s.model.layers = 2;
  Program two = stage_program(s, 0, false), folded = stage_program(s, 0, true);
  ASSERT_EQ(folded.size(), p.size()); // one layer's ops
  for (size_t i = 0; i < p.size(); ++i) {
    bool kernel = p[i].kind == OpKind::compute || p[i].kind == OpKind::weight_gradients;
    bool started = p[i].kind == OpKind::start_collective;
    EXPECT_EQ(folded[i].count, started ? 2 * p[i].count : p[i].count) << i;
    EXPECT_DOUBLE_EQ(folded[i].duration.value(), (kernel ? 2 : 1) * p[i].duration.value()) << i;
  }
  EXPECT_EQ(two.size(), 2 * p.size() - 1); // both layers' blocks, one program-ending wait
  s.model.layers = 1;
  // Over tp 2 the GPU holds half the input: splits 0 and 1 run on it, 2 and 3 wait for the
  // gathers' first 1 and 2 splits (ceil(j + 1 - 4 / 2)).
  s = scenario(ModelKind::mlp, 1, grid(1, 2, 1, 1));
  s.execution.tp_overlap = s.execution.sequence_parallel = true;
  EXPECT_EQ(
      shape(stage_program(s, 0, false))
          .rfind(
              gathers +
                  " C start:tp.RS C start:tp.RS waitT:1 C start:tp.RS waitT:2 C start:tp.RS waitT",
              0),
      0u);
}

TEST(Program, AKernelSplitWaitsForTheGatheredRowsBeyondItsOwnShard) {
  // Split j of k covers the gathered input up to (j + 1) / k, the GPU holds 1 / ranks, each
  // gather split brings 1 / k: ceil(j + 1 - k / ranks) splits, at least 0.
  using program_detail::gathered_splits_needed;
  EXPECT_EQ(gathered_splits_needed(0, 1, 8), 1); // one split: the whole gather first
  EXPECT_EQ(gathered_splits_needed(0, 4, 8), 1); // ceil(1 - 0.5)
  EXPECT_EQ(gathered_splits_needed(3, 4, 8), 4); // ceil(4 - 0.5)
  EXPECT_EQ(gathered_splits_needed(2, 4, 4), 2); // ring exchange: j
  EXPECT_EQ(gathered_splits_needed(1, 8, 4), 0); // ceil(2 - 2): its own rows
  EXPECT_EQ(gathered_splits_needed(7, 8, 4), 6); // ceil(8 - 2)
}

TEST(Program, TwoDimensionalTpReducesTheHiddenActivationBetweenTheMatmuls) {
  // tp 2 x tp_2d 2, one MLP layer: the block's kernel in two halves (up, down), the hidden
  // activation all-reduced over tp_2d between them and the output over tp after; backward
  // the same shape (down's gradients, tp_2d, up's, tp).
  ExecutionSpec e = grid(1, 2, 1, 1);
  e.tp_2d = 2;
  Scenario s = scenario(ModelKind::mlp, 1, e);
  Program p = stage_program(s, 0, false);
  ASSERT_EQ(shape(p), "C tp2.AR C tp.AR C tp2.AR C tp.AR waitS");
  LayerCosts c = layer_costs(s.model, s.execution);
  EXPECT_DOUBLE_EQ(p[0].duration.value(), kernel_time(c.mlp, s.system.gpu).value() / 2);
  EXPECT_EQ(p[1].bytes, c.tp2_allreduce);
  EXPECT_EQ(p[3].bytes, c.tp_allreduce);
  // Overlapped: up's splits start their splits of the hidden all-reduce; each split of down
  // waits for its own (the first 1, 2, 3, 4 on the second axis's stream) and starts its
  // split of the output's all-reduce on the first axis's; the block waits for both. Backward, up's
  // weight gradient follows the splits of its gradients (the last kernel), beside the output's
  // all-reduce.
  s.execution.tp_overlap = true;
  p = stage_program(s, 0, false);
  const std::string first = "C start:tp2.AR C start:tp2.AR C start:tp2.AR C start:tp2.AR";
  const std::string second =
      "waitT2:1 C start:tp.AR waitT2:2 C start:tp.AR waitT2:3 C start:tp.AR waitT2:4 C start:tp.AR";
  ASSERT_EQ(shape(p), first + " " + second + " waitT " + first + " " + second + " W waitT waitS");
  // Folded, a pass is one block's pipeline: the kernels that start the hidden all-reduce (up,
  // forward; down's gradients, backward) in 4 splits, then the rest, split j waiting for the
  // hidden all-reduce's first j + 1 shares. One layer folds to its own program.
  EXPECT_EQ(shape(stage_program(s, 0, true)), shape(p));
  // Two layers: the same shape, each share two collectives, each split two kernels' splits.
  s.model.layers = 2;
  const std::string first2 = "C start:tp2.AR*2 C start:tp2.AR*2 C start:tp2.AR*2 C start:tp2.AR*2";
  const std::string second2 = "waitT2:1 C start:tp.AR*2 waitT2:2 C start:tp.AR*2 waitT2:3 C "
                              "start:tp.AR*2 waitT2:4 C start:tp.AR*2";
  EXPECT_EQ(shape(stage_program(s, 0, true)),
            first2 + " " + second2 + " waitT " + first2 + " " + second2 + " W waitT waitS");
}

} // namespace
} // namespace trainsim
