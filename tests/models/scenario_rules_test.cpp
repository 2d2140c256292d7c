// The scenario rules over values: a Scenario made in code is refused with the same one-line
// messages a file gets from the loader (tests/tools/loader_test.cpp checks the file side).
#include <gtest/gtest.h>

#include <string>

#include "models/error.hpp"
#include "models/scenario_rules.hpp"

namespace trainsim {
namespace {

// 8 layers of d_model 1024 on 8 GPUs (dp 2, tp 2, pp 2), 8 sequences in microbatches of 1:
// 8 / (2 x 1) = 4 microbatches per pipeline, a multiple of pp.
Scenario small() {
  Scenario s;
  s.file = "code.yaml";
  s.model.layers = 8;
  s.model.d_model = 1024;
  s.model.d_ff = 4096;
  s.model.heads = 8;
  s.model.seq_len = 512;
  s.execution.dp = 2;
  s.execution.tp = 2;
  s.execution.pp = 2;
  s.execution.global_batch = 8;
  return s;
}

std::string refusal(const Scenario& s, std::optional<double> gpus = 8) {
  try {
    check_scenario(s, gpus);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ScenarioRules, AValidScenarioPasses) { EXPECT_EQ(refusal(small()), "accepted"); }

TEST(ScenarioRules, EachBrokenRuleNamesItsKeyAndValue) {
  Scenario s = small();
  s.execution.dp = 0;
  EXPECT_EQ(refusal(s), "code.yaml: execution.dp = '0': must be greater than zero");
  s = small();
  s.execution.ep = 4; // dp 2 is not a multiple of 4
  EXPECT_EQ(refusal(s), "code.yaml: execution.ep = '4': must divide dp (2)");
  s = small();
  s.execution.global_batch = 6; // 6 sequences do not split into rounds of dp 2 x 4
  s.execution.micro_batch = 4;
  EXPECT_EQ(
      refusal(s),
      "code.yaml: execution.global_batch = '6': does not divide into dp x micro_batch = 2 x 4 "
      "sequences per microbatch round");
  s = small();
  s.execution.zero = 1; // ZeRO-1 needs a reduce-scatter, which the double binary tree lacks
  s.execution.dp_collective = "tree";
  EXPECT_EQ(refusal(s), "code.yaml: execution.dp_collective = 'tree': has no reduce-scatter, which "
                        "this execution needs");
  s = small();
  s.execution.tp_collective = "rign";
  EXPECT_EQ(
      refusal(s),
      "code.yaml: execution.tp_collective = 'rign': is not a collective algorithm (did you mean "
      "'ring'?)");
  s = small();
  s.model.heads = 3; // 1024 / 3 is not whole
  EXPECT_EQ(refusal(s), "code.yaml: model.heads = '3': must divide d_model (1024)");
  s = small();
  s.execution.tp_overlap = true;
  s.execution.tp = 1;
  s.execution.dp = 4;
  EXPECT_EQ(refusal(s),
            "code.yaml: execution.tp_overlap = 'true': needs tp or tp_2d > 1: there is no TP "
            "collective to overlap");
  s = small();
  s.execution.fp8_param_gather = true; // BF16 weights have no FP8 copies to gather
  EXPECT_EQ(refusal(s), "code.yaml: execution.fp8_param_gather = 'true': needs "
                        "model.precision: fp8: only FP8 training keeps FP8 copies of the weights");
  s.model.precision = "fp8";
  s.model.fp8_recipe = Fp8Recipe::tensorwise;
  s.execution.zero = 0;
  EXPECT_EQ(refusal(s), "code.yaml: execution.fp8_param_gather = 'true': needs zero 1, 2 or 3: "
                        "without ZeRO no parameters are gathered");
  s = small();
  s.execution.sequence_parallel = true; // with one TP rank it would change nothing
  s.execution.tp = 1;
  s.execution.dp = 4;
  EXPECT_EQ(refusal(s),
            "code.yaml: execution.sequence_parallel = 'true': needs tp > 1: it splits the layer "
            "norms' tokens over the first TP axis, which has one rank here");
  s = small();
  s.execution.tp_overlap_splits = 2; // without tp_overlap it would change nothing
  EXPECT_EQ(refusal(s),
            "code.yaml: execution.tp_overlap_splits = '2': splits tp_overlap's pipelines, which "
            "is off; set tp_overlap: true or drop it");
}

TEST(ScenarioRules, ADelayedUpdateNamesWhatItConflictsWith) {
  Scenario s = small();
  s.execution.delayed_update = true;
  EXPECT_EQ(refusal(s), "accepted");
  s.execution.zero = 3;
  EXPECT_EQ(refusal(s),
            "code.yaml: execution.delayed_update = 'true': needs zero below 3: ZeRO-3 reduces "
            "each layer's gradients during the backward pass, leaving nothing to delay");
  s.execution.zero = 1;
  s.execution.dp_overlap = true;
  EXPECT_EQ(refusal(s),
            "code.yaml: execution.dp_overlap = 'true': conflicts with delayed_update, which "
            "already runs the whole gradient reduction alongside the next step; set one of the "
            "two");
}

TEST(ScenarioRules, EarlyParameterGathersNeedZeroOneOrTwoAndNoDelayedUpdate) {
  Scenario s = small();
  s.execution.param_gather_overlap = true;
  EXPECT_EQ(refusal(s), "code.yaml: execution.param_gather_overlap = 'true': needs zero 1 or 2: "
                        "only they gather the updated parameters after the step");
  s.execution.zero = 2;
  EXPECT_EQ(refusal(s), "accepted");
  s.execution.delayed_update = true;
  EXPECT_EQ(refusal(s), "code.yaml: execution.param_gather_overlap = 'true': conflicts with "
                        "delayed_update, which already gathers the parameters alongside the next "
                        "step; set one of the two");
}

TEST(ScenarioRules, PrefetchedGathersNeedZeroThree) {
  Scenario s = small();
  s.execution.zero3_prefetch = true;
  s.execution.zero = 2;
  EXPECT_EQ(refusal(s), "code.yaml: execution.zero3_prefetch = 'true': needs zero 3: only it "
                        "gathers each layer's parameters during the passes");
  s.execution.zero = 3;
  EXPECT_EQ(refusal(s), "accepted");
}

TEST(ScenarioRules, TheGridMustEqualTheTopologysGpusWhenKnown) {
  EXPECT_EQ(refusal(small(), 16),
            "code.yaml: execution.dp x tp x pp = '2 x 2 x 2 = 8': must equal the topology's "
            "16 GPUs");
  EXPECT_EQ(refusal(small(), std::nullopt), "accepted"); // an imported file's count comes later
}

TEST(ScenarioRules, TwoDimensionalTpNamesWhatItNeeds) {
  // tp 2 x tp_2d 2 on the MLP-block model: dp 1 x 2 x 2 x pp 2 = 8 GPUs.
  Scenario s = small();
  s.model.kind = ModelKind::mlp;
  s.execution.dp = 1;
  s.execution.tp_2d = 2;
  s.execution.global_batch = 4;
  EXPECT_EQ(refusal(s), "accepted");
  EXPECT_EQ(refusal(s, 16), "code.yaml: execution.dp x tp x tp_2d x pp = '1 x 2 x 2 x 2 = 8': "
                            "must equal the topology's 16 GPUs");
  Scenario bad = s;
  bad.execution.tp_2d = 0;
  EXPECT_EQ(refusal(bad), "code.yaml: execution.tp_2d = '0': must be greater than zero");
  bad = s;
  bad.model.kind = ModelKind::transformer;
  EXPECT_EQ(refusal(bad), "code.yaml: execution.tp_2d = '2': needs model.kind: mlp (2-D TP is "
                          "modelled for the paper's MLP block only)");
  bad = s;
  bad.model.experts = 2;
  bad.execution.dp = 2, bad.execution.ep = 2, bad.execution.pp = 1;
  EXPECT_EQ(refusal(bad), "code.yaml: execution.tp_2d = '2': with ep > 1 or etp is not modelled");
  // Experts split over their own ranks have no second axis either.
  bad = s;
  bad.model.experts = 2;
  bad.execution.etp = 1;
  EXPECT_EQ(refusal(bad), "code.yaml: execution.tp_2d = '2': with ep > 1 or etp is not modelled");
}

TEST(ScenarioRules, ContextParallelismNamesWhatItNeeds) {
  // cp 2 over small()'s 8 GPUs: dp 1 x tp 2 x pp 2 x cp 2; a sequence of 512 tokens splits
  // into 2 x cp = 4 pieces of 128.
  Scenario s = small();
  s.execution.dp = 1;
  s.execution.cp = 2;
  EXPECT_EQ(refusal(s), "accepted");
  EXPECT_EQ(refusal(s, 16), "code.yaml: execution.dp x tp x pp x cp = '1 x 2 x 2 x 2 = 8': must "
                            "equal the topology's 16 GPUs");
  Scenario bad = s;
  bad.execution.cp = 0;
  EXPECT_EQ(refusal(bad), "code.yaml: execution.cp = '0': must be greater than zero");
  bad = s;
  bad.model.seq_len = 510; // not 4 equal pieces
  EXPECT_EQ(refusal(bad), "code.yaml: execution.cp = '2': must split model.seq_len (510) into 2 x "
                          "cp = 4 equal pieces");
  bad = s;
  bad.model.kind = ModelKind::mlp;
  EXPECT_EQ(refusal(bad), "code.yaml: execution.cp = '2': needs a transformer (the MLP-block "
                          "model has no attention)");
  bad = s;
  bad.model.attention = AttentionKernel::unfused;
  EXPECT_EQ(refusal(bad), "code.yaml: execution.cp = '2': needs a fused attention kernel, flash or "
                          "cudnn (CP splits one kernel)");
  // Experts under CP: EP takes its groups from the dp x cp = 2 weight replicas; 2 of them
  // are accepted, 4 are not there.
  Scenario experts = s;
  experts.model.experts = 4;
  experts.execution.ep = 2;
  EXPECT_EQ(refusal(experts), "accepted");
  bad = experts;
  bad.execution.ep = 4;
  EXPECT_EQ(refusal(bad), "code.yaml: execution.ep = '4': must divide dp x cp (2)");
  bad = s;
  bad.execution.dp_collective = "tree"; // CP's key/value gathers need an all-gather
  EXPECT_EQ(refusal(bad), "code.yaml: execution.dp_collective = 'tree': has no reduce-scatter, "
                          "which this execution needs");
}

TEST(ScenarioRules, DirectCollectivesStayInsideOneNvswitchNode) {
  // The default topology's nodes hold 8 GPUs: a TP block of 2 fits, one of 16 does not.
  Scenario s = small();
  s.execution.tp_collective = "direct";
  EXPECT_EQ(refusal(s), "accepted");
  s.system.topology = topo::FatTreeParams{.nodes = 4, .gpus_per_node = 1};
  EXPECT_EQ(refusal(s), "code.yaml: execution.tp_collective = 'direct': needs each TP block "
                        "inside one NVSwitch node (2 GPUs; the topology's nodes hold 1)");
  s.system.topology = topo::TorusParams{};
  EXPECT_EQ(refusal(s), "code.yaml: execution.tp_collective = 'direct': needs each TP block "
                        "inside one NVSwitch node (2 GPUs; the topology's nodes hold none: a "
                        "torus or imported graph)");
  s = small();
  s.execution.dp_collective = "direct";
  // The algorithms a DP group may use instead: the catalogue's all-reduces that leave a node.
  EXPECT_EQ(refusal(s), "code.yaml: execution.dp_collective = 'direct': runs only inside one "
                        "NVSwitch node; DP groups use ring, tree, hierarchical, auto or pat");
}

TEST(ScenarioRules, FitIsCheckedAfterTheGrid) {
  Scenario s = small();
  s.execution.pp = 16; // more stages than the 8 layers; the grid 2 x 2 x 16 = 64 is given
  s.execution.global_batch = 32;
  EXPECT_EQ(refusal(s, 64), "code.yaml: execution.pp = '16': exceeds the model's 8 layers");
}

TEST(ScenarioRules, ACapacityFactorNeedsExpertsAndAtLeastOneExpertsShare) {
  Scenario s = small();
  s.execution.moe_capacity_factor = 1.25;
  EXPECT_EQ(refusal(s), "code.yaml: execution.moe_capacity_factor = '1.25': applies to a mixture "
                        "of experts only (model.experts > 1; this model has 1)");
  // 8 experts: 1 / 8 = 0.125 is the least; 0.1 x 8 experts keep 0.8 of one expert's share.
  s.model.experts = 8, s.model.top_k = 2;
  EXPECT_EQ(refusal(s), "accepted");
  s.execution.moe_capacity_factor = 0.1;
  EXPECT_EQ(refusal(s), "code.yaml: execution.moe_capacity_factor = '0.1': must be at least 1 / "
                        "experts (0.125): below it all 8 experts together keep less than one "
                        "expert's balanced share");
  s.execution.moe_capacity_factor = 0;
  s.execution.moe_pad_to_capacity = true;
  EXPECT_EQ(refusal(s), "code.yaml: execution.moe_pad_to_capacity = 'true': needs "
                        "moe_capacity_factor: without one no expert has a capacity to pad to");
}

TEST(ScenarioRules, TheAllGatherDispatcherNeedsExpertsAndNoTensorParallelism) {
  Scenario s = small(); // dense, tp 2
  s.execution.moe_dispatcher = MoeDispatcher::allgather;
  EXPECT_EQ(refusal(s), "code.yaml: execution.moe_dispatcher = 'allgather': applies to a mixture "
                        "of experts only (model.experts > 1; this model has 1)");
  s.model.experts = 8, s.model.top_k = 2;
  EXPECT_EQ(refusal(s), "code.yaml: execution.moe_dispatcher = 'allgather': with tp > 1 gathers "
                        "over the TP x EP group (Megatron-Core's tp_ep_group), which is not "
                        "modelled: use tp 1 or moe_dispatcher: alltoall");
  s.execution.tp = 1, s.execution.dp = 4;
  EXPECT_EQ(refusal(s), "accepted");
}

TEST(ScenarioRules, DeepEpNeedsExpertsTheAllToAllAndAnNvlinkDomain) {
  Scenario s = small(); // dense
  s.execution.ep_collective = "deepep";
  EXPECT_EQ(refusal(s), "code.yaml: execution.ep_collective = 'deepep': applies to a mixture of "
                        "experts only (model.experts > 1; this model has 1)");
  s.model.experts = 8, s.model.top_k = 2;
  EXPECT_EQ(refusal(s), "accepted");
  s.system.topology = topo::FatTreeParams{.nodes = 8, .gpus_per_node = 1};
  EXPECT_EQ(refusal(s), "code.yaml: execution.ep_collective = 'deepep': forwards over NVLink "
                        "inside a node, and this fabric's nodes have one GPU each");
  s = small();
  s.model.experts = 8, s.model.top_k = 2;
  s.execution.ep_collective = "deepep", s.execution.tp = 1, s.execution.dp = 4;
  s.execution.moe_dispatcher = MoeDispatcher::allgather;
  EXPECT_EQ(refusal(s), "code.yaml: execution.ep_collective = 'deepep': is an all-to-all; "
                        "moe_dispatcher: allgather sends no all-to-all (set moe_dispatcher: "
                        "alltoall)");
}

TEST(ScenarioRules, AnImbalanceLiesInItsRangeOverEpRanksOfThePairwiseAllToAll) {
  Scenario s = small(); // dense, dp 2, tp 2
  s.execution.moe_imbalance = 1.5;
  EXPECT_EQ(refusal(s), "code.yaml: execution.moe_imbalance = '1.5': must be between 0 "
                        "(balanced) and 1 (the busiest EP rank twice its share, the idlest none)");
  s.execution.moe_imbalance = -0.1;
  EXPECT_EQ(refusal(s), "code.yaml: execution.moe_imbalance = '-0.1': must be between 0 "
                        "(balanced) and 1 (the busiest EP rank twice its share, the idlest none)");
  s.execution.moe_imbalance = 0.2;
  EXPECT_EQ(refusal(s), "code.yaml: execution.moe_imbalance = '0.2': applies to a mixture of "
                        "experts only (model.experts > 1; this model has 1)");
  s.model.experts = 8, s.model.top_k = 2;
  EXPECT_EQ(refusal(s), "code.yaml: execution.moe_imbalance = '0.2': spreads the tokens unevenly "
                        "over EP ranks, and ep is 1 (every rank holds every expert)");
  s.execution.ep = 2;
  EXPECT_EQ(refusal(s), "accepted");
  s.execution.ep_collective = "deepep";
  EXPECT_EQ(refusal(s), "code.yaml: execution.moe_imbalance = '0.2': is not modelled with "
                        "ep_collective: deepep, whose node hops assume uniform routing (use "
                        "pairwise)");
}

TEST(ScenarioRules, AnInterleavedMicrobatchGroupFollowsMegatronCoresRules) {
  // pp 2, 8 layers in 2 x 2 chunks, 10 sequences over dp 2: 5 microbatches per pipeline.
  Scenario s = small();
  s.execution.schedule = PipelineSchedule::interleaved;
  s.execution.interleave = 2;
  s.execution.global_batch = 10;
  EXPECT_EQ(refusal(s), "code.yaml: execution.schedule = 'interleaved': interleaved needs the "
                        "microbatches per pipeline (5) to be a multiple of pp (2), or a "
                        "microbatch_group whose last group holds at least pp");
  s.execution.microbatch_group = 3; // groups of 3 and 2: Megatron-Core's PP2 N3 M5 example
  EXPECT_EQ(refusal(s), "accepted");
  s.execution.microbatch_group = 4; // groups of 4 and 1: the last one shorter than pp
  EXPECT_EQ(refusal(s), "code.yaml: execution.microbatch_group = '4': leaves a last group of 1 "
                        "of the microbatches per pipeline (5), fewer than pp (2): its passes "
                        "would wait on one another (Megatron-Core refuses it)");
  for (int group : {1, 6})
    EXPECT_EQ(refusal([&] {
                Scenario t = s;
                t.execution.microbatch_group = group;
                return t;
              }()),
              "code.yaml: execution.microbatch_group = '" + std::to_string(group) +
                  "': must be at least pp (2) and at most the microbatches per pipeline (5)");
  s = small();
  s.execution.microbatch_group = 2;
  EXPECT_EQ(refusal(s), "code.yaml: execution.microbatch_group = '2': needs schedule: interleaved");
}

TEST(ScenarioRules, DualPipeVNeedsTwoStagesTwiceTheirMicrobatchesAndNoFixedEnds) {
  // pp 2: 8 layers in 2 x 2 chunks of 2. dualpipev.py asserts num_chunks >= 2 x num_ranks, so
  // 4 microbatches per pipeline (8 sequences over dp 2) are the fewest it runs.
  Scenario s = small();
  s.execution.schedule = PipelineSchedule::dualpipev;
  EXPECT_EQ(refusal(s), "accepted");
  s.execution.global_batch = 6; // 3 microbatches
  EXPECT_EQ(refusal(s), "code.yaml: execution.schedule = 'dualpipev': needs at least 2 x pp = 4 "
                        "microbatches per pipeline (global_batch / (dp x micro_batch) is 3)");
  s = small();
  s.execution.schedule = PipelineSchedule::dualpipev;
  s.execution.pp = 1;
  s.execution.dp = 4;
  EXPECT_EQ(refusal(s), "code.yaml: execution.schedule = 'dualpipev': needs pp of at least 2");
  s = small();
  s.execution.schedule = PipelineSchedule::dualpipev;
  s.execution.first_stage_layers = 2;
  EXPECT_EQ(refusal(s), "code.yaml: execution.schedule = 'dualpipev': cannot be combined with "
                        "first_stage_layers or last_stage_layers: the first stage holds both "
                        "ends of the V (write a pipeline_layout instead)");
  s = small();
  s.execution.schedule = PipelineSchedule::dualpipev;
  s.model.layers = 6; // 6 layers do not split into 2 x 2 chunks
  EXPECT_EQ(refusal(s), "code.yaml: execution.schedule = 'dualpipev': splits each stage into 2 "
                        "chunks: 2 x pp = 4 must divide the model's 6 layers (or "
                        "embedding_as_layer, loss_as_layer or a pipeline_layout must make the "
                        "split even)");
}

} // namespace
} // namespace trainsim
