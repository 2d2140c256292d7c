// Every way a scenario can be wrong gets one line naming the file, the key and the value.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include "tests/support/captured_warnings.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tests/tools/loader_fixtures.hpp"

namespace trainsim {
namespace {

using testing::error_of;
using testing::with;

// A valid 16-GPU scenario; each test breaks one thing in it.
const std::string kValid = R"(model:
  kind: transformer
  layers: 4
  d_model: 1024
  d_ff: 4096
  heads: 16
  seq_len: 1024
system:
  gpu: {preset: h100-sxm, hbm_capacity: 80GB}
  topology: {generator: fat-tree, nodes: 2, nic_bandwidth: 400Gbps}
execution:
  dp: 2
  tp: 8
  pp: 1
  global_batch: 8
  micro_batch: 2
)";

TEST(Loader, AcceptsTheValidScenario) {
  LoadedScenario loaded = parse_scenario(kValid, "s.yaml");
  EXPECT_EQ(loaded.scenario.execution.gpus(), 16);
  EXPECT_EQ(loaded.topology.gpu_count(), 16);
  EXPECT_EQ(loaded.scenario.execution.microbatches(), 2); // 8 sequences / (dp 2 x micro 2)
  EXPECT_DOUBLE_EQ(loaded.scenario.system.gpu.hbm_capacity.value(), 80e9);
}

TEST(Loader, HoldsTheTopologySectionAsItsTypedSpec) {
  LoadedScenario loaded = parse_scenario(kValid, "s.yaml");
  const topo::TopologySpec& t = loaded.scenario.system.topology;
  // kValid: a fat-tree of 2 nodes with 400 Gb/s = 50 GB/s NICs, every other key at its default.
  EXPECT_EQ(t, topo::TopologySpec(
                   topo::FatTreeParams{.nodes = 2, .nic_bandwidth = BytesPerSecond(50e9)}));
  EXPECT_EQ(t.given.at("nic_bandwidth"), "400Gbps"); // as written, for the reports
}

TEST(Loader, UnknownKeysGetASuggestion) {
  EXPECT_EQ(error_of(with(kValid, "d_ff:", "d_fff:")),
            "s.yaml: model.d_fff = '4096': unknown key (did you mean 'd_ff'?)");
  EXPECT_EQ(error_of(with(kValid, "execution:", "executoin:")),
            "s.yaml: executoin = '': unknown key (did you mean 'execution'?)");
  EXPECT_EQ(error_of(with(kValid, "nodes: 2", "nodes: 2, nodez: 3")),
            "s.yaml: system.topology.nodez = '3': unknown key (did you mean 'nodes'?)");
  // The key's name until 2026-12-06 ("chunk" now means a model chunk alone) leads to the new
  // one: 5 letters apart, under the typo limit of 17 / 3 + 1 = 6.
  EXPECT_EQ(error_of(with(kValid, "dp: 2", "dp: 2\n  tp_overlap: true\n  tp_overlap_chunks: 2")),
            "s.yaml: execution.tp_overlap_chunks = '2': unknown key (did you mean "
            "'tp_overlap_splits'?)");
}

TEST(Loader, MissingKeysAreNamed) {
  EXPECT_EQ(error_of(with(kValid, "  layers: 4\n", "")), "s.yaml: model.layers = '': is missing");
  EXPECT_EQ(error_of(with(kValid, "  global_batch: 8\n", "")),
            "s.yaml: execution.global_batch = '': is missing");
}

TEST(Loader, WrongUnitsAreRejected) {
  EXPECT_EQ(error_of(with(kValid, "nic_bandwidth: 400Gbps", "nic_bandwidth: 400")),
            "s.yaml: system.topology.nic_bandwidth = '400': '400' needs a unit (Bps or bps with a "
            "prefix, e.g. "
            "450GBps, 400Gbps)");
  EXPECT_EQ(error_of(with(kValid, "hbm_capacity: 80GB", "hbm_capacity: 80us")),
            "s.yaml: system.gpu.hbm_capacity = '80us': '80us' has no valid unit (expected B, kB, "
            "MB, GB, GiB, ...)");
}

TEST(Loader, ZeroAndNegativeSizesAreRejected) {
  EXPECT_EQ(error_of(with(kValid, "layers: 4", "layers: 0")),
            "s.yaml: model.layers = '0': must be greater than zero");
  EXPECT_EQ(error_of(with(kValid, "dp: 2", "dp: -2")),
            "s.yaml: execution.dp = '-2': must be greater than zero");
  EXPECT_EQ(error_of(with(kValid, "dp: 2", "dp: 2\n  tp_overlap_splits: 0")),
            "s.yaml: execution.tp_overlap_splits = '0': must be greater than zero");
  EXPECT_EQ(error_of(with(kValid, "nic_bandwidth: 400Gbps", "nic_bandwidth: 0Gbps")),
            "s.yaml: system.topology.nic_bandwidth = '0Gbps': must be greater than zero");
}

TEST(Loader, AnOptionThatSplitsAnotherIsRefusedWithoutIt) {
  // One rule for options that only shape another one: each is refused while that one is off.
  EXPECT_EQ(error_of(with(kValid, "dp: 2", "dp: 2\n  tp_overlap_splits: 2")),
            "s.yaml: execution.tp_overlap_splits = '2': splits tp_overlap's pipelines, which is "
            "off; set tp_overlap: true or drop it");
  EXPECT_EQ(error_of(with(kValid, "dp: 2", "dp: 2\n  dp_bucket: 50MB")),
            "s.yaml: execution.dp_bucket = '50 MB': splits dp_overlap's gradient reductions (and "
            "param_gather_overlap's gathers), which are off; set dp_overlap: true or drop it");
  EXPECT_EQ(error_of(with(kValid, "dp: 2", "dp: 2\n  dp_bucket: 50MB\n  dp_overlap: true")),
            "accepted");
  EXPECT_EQ(error_of(with(kValid, "dp: 2", "dp: 2\n  tp_overlap: true\n  tp_overlap_splits: 1000")),
            "s.yaml: execution.tp_overlap_splits = '1000': must be at most 64: each split is a "
            "kernel and a collective of its own, each paying its launch and latency (Transformer "
            "Engine's pipelined overlap uses 4)");
}

TEST(Loader, GridMustMatchTheTopology) {
  EXPECT_EQ(error_of(with(kValid, "dp: 2", "dp: 4")),
            "s.yaml: execution.dp x tp x pp = '4 x 8 x 1 = 32': must equal the topology's 16 GPUs");
}

TEST(Loader, BatchMustDivideIntoMicrobatches) {
  EXPECT_EQ(error_of(with(kValid, "global_batch: 8", "global_batch: 6")),
            "s.yaml: execution.global_batch = '6': does not divide into dp x micro_batch = 2 x 2 "
            "sequences per "
            "microbatch round");
}

TEST(Loader, HugeDegreesAndBatchesAreRefusedBeforeTheyOverflow) {
  // 2^20 x 2^11 x 1 = 2^31 GPUs: dp x tp x pp wrapped around an int before it was compared.
  EXPECT_EQ(error_of(with(with(kValid, "dp: 2", "dp: 1048576"), "tp: 8", "tp: 2048")),
            "s.yaml: execution.dp = '1048576': gives dp x tp x pp = 1048576 x 2048 x 1 GPUs, more "
            "than the 10000000 "
            "supported");
  // dp x micro_batch = 2 x 2^62 overflowed a long; a micro_batch above global_batch / dp never
  // divides.
  EXPECT_EQ(error_of(with(kValid, "micro_batch: 2", "micro_batch: 4611686018427387904")),
            "s.yaml: execution.global_batch = '8': does not divide into dp x micro_batch = 2 x "
            "4611686018427387904 "
            "sequences per microbatch round");
  EXPECT_EQ(error_of(with(kValid, "micro_batch: 2", "micro_batch: 1e15")),
            "s.yaml: execution.global_batch = '8': does not divide into dp x micro_batch = 2 x "
            "1000000000000000 "
            "sequences per microbatch round");
  // 2^32 sequences over dp 2 x micro_batch 2: 2^30 microbatches, more than the schedule's ints
  // hold.
  EXPECT_EQ(error_of(with(kValid, "global_batch: 8", "global_batch: 4294967296")),
            "s.yaml: execution.global_batch = '4294967296': gives 1073741824 microbatches per "
            "pipeline (global_batch / "
            "(dp x micro_batch)); at most 100000000 passes are supported");
}

TEST(Loader, ModelMustFitInMemory) {
  std::string big = with(with(kValid, "d_model: 1024", "d_model: 65536"), "heads: 16", "heads: 64");
  // 4 layers x (4 x 65536^2 + 2 x 65536 x 4096) / tp 8 = 8.86e9 parameters per GPU: 17.7 GB
  // of BF16 weights, 17.7 GB of gradients and 12 B x 8.86e9 = 106 GB of optimizer state.
  std::string message = error_of(big);
  EXPECT_EQ(message.substr(0, 84),
            "s.yaml: system.gpu.hbm_capacity = '80 GB': too small: dp x tp x pp = 2 x 8 x 1 needs");
  EXPECT_NE(message.find("(weights 17.7 GB, gradients 17.7 GB, optimizer 106 GB"),
            std::string::npos)
      << message;
}

TEST(Loader, ChoicesSuggestTheClosestName) {
  EXPECT_EQ(error_of(with(kValid, "generator: fat-tree", "generator: fat-tre")),
            "s.yaml: system.topology.generator = 'fat-tre': unknown topology generator (did you "
            "mean 'fat-tree'?)");
  EXPECT_EQ(error_of(with(kValid, "micro_batch: 2", "micro_batch: 2\n  collective: rign")),
            "s.yaml: execution.collective = 'rign': is not a collective algorithm (did you mean "
            "'ring'?)");
  EXPECT_EQ(error_of(with(kValid, "micro_batch: 2", "micro_batch: 2\n  schedule: 1f1c")),
            "s.yaml: execution.schedule = '1f1c': must be one of 1f1b, gpipe, interleaved, "
            "dualpipev (did you mean '1f1b'?)");
  // No name is close to cnn: the line still says what is allowed.
  EXPECT_EQ(error_of(with(kValid, "kind: transformer", "kind: cnn")),
            "s.yaml: model.kind = 'cnn': must be one of transformer, mlp");
  EXPECT_EQ(error_of(with(kValid, "seq_len: 1024", "seq_len: 1024\n  precision: bf8")),
            "s.yaml: model.precision = 'bf8': must be one of fp32, bf16, fp16, fp8 (did you mean "
            "'bf16'?)");
}

TEST(Loader, KeysDifferingOnlyInCaseGetTheRightSuggestion) {
  // TP is two edits from dp, pp and ep as well; only case separates it from tp.
  EXPECT_EQ(error_of(with(kValid, "tp: 8", "TP: 8")),
            "s.yaml: execution.TP = '8': unknown key (did you mean 'tp'?)");
}

TEST(Loader, IntegersTooLargeForTheirTypeAreOutOfRange) {
  // 1e10 nodes is beyond an int (2147483647); it used to wrap and read as "must be greater than
  // zero".
  EXPECT_EQ(error_of(with(kValid, "nodes: 2", "nodes: 1e10")),
            "s.yaml: system.topology.nodes = '1e10': is out of range (at most 2147483647)");
}

TEST(Loader, PrefixesThatMakeNoSenseAreRejected) {
  EXPECT_EQ(error_of(with(kValid, "nic_bandwidth: 400Gbps", "nic_bandwidth: 400mbps")),
            "s.yaml: system.topology.nic_bandwidth = '400mbps': '400mbps': bandwidth takes the "
            "prefixes k, K, M, G, T, "
            "P, Ki, Mi, Gi, Ti, not 'm' (did you mean '400Mbps'?)");
}

TEST(Loader, DuplicateKeysNameBothLines) {
  // kValid: "  layers: 4" is line 3; the copy goes after "  seq_len: 1024" (line 7), as line 8.
  EXPECT_EQ(error_of(with(kValid, "seq_len: 1024\n", "seq_len: 1024\n  layers: 8\n")),
            "s.yaml: model.layers: duplicate key (lines 3 and 8)");
  // A second model section replaced the first, which then read as "model.d_model is missing";
  // kValid is 16 lines, so the second one is line 17.
  EXPECT_EQ(error_of(kValid + "model:\n  layers: 2\n"),
            "s.yaml: model: duplicate key (lines 1 and 17)");
  EXPECT_EQ(error_of(with(kValid, "nodes: 2,", "nodes: 2, nodes: 4,")),
            "s.yaml: system.topology.nodes: duplicate key (twice on line 10)");
}

TEST(Loader, EmptyOrNonMappingFilesSaySoWithoutAnEmptyKey) {
  EXPECT_EQ(error_of(""), "s.yaml: the file is empty");
  EXPECT_EQ(error_of("\n  \n"), "s.yaml: the file is empty");
  EXPECT_EQ(
      error_of("# only a comment\n"),
      "s.yaml: the top level must be a mapping with model, system and execution, found nothing");
  EXPECT_EQ(
      error_of("- model\n"),
      "s.yaml: the top level must be a mapping with model, system and execution, found a list");
}

TEST(Loader, AGpuPresetGivesItsFiguresAndTakesOverrides) {
  LoadedScenario a100 = parse_scenario(
      with(kValid, "gpu: {preset: h100-sxm, hbm_capacity: 80GB}", "gpu: a100-sxm-40gb"), "s.yaml");
  EXPECT_DOUBLE_EQ(a100.scenario.system.gpu.peak.value(), 312e12);
  EXPECT_DOUBLE_EQ(a100.scenario.system.gpu.hbm_capacity.value(), 40e9);
  EXPECT_EQ(a100.scenario.system.gpu.preset, "a100-sxm-40gb");
  // An H100 SXM with the 94 GB of the H100 NVL: the preset's other figures stay.
  LoadedScenario h100 =
      parse_scenario(with(kValid, "gpu: {preset: h100-sxm, hbm_capacity: 80GB}",
                          "gpu: {preset: h100-sxm, hbm_capacity: 94GB, name: big}"),
                     "s.yaml");
  EXPECT_DOUBLE_EQ(h100.scenario.system.gpu.hbm_capacity.value(), 94e9);
  EXPECT_DOUBLE_EQ(h100.scenario.system.gpu.hbm_bandwidth.value(), 3.35e12);
  EXPECT_EQ(h100.scenario.system.gpu.preset, "h100-sxm");
  EXPECT_EQ(h100.scenario.system.gpu.name, "big");
  // Without the section: the H100 SXM, named as such.
  LoadedScenario none =
      parse_scenario(with(kValid, "  gpu: {preset: h100-sxm, hbm_capacity: 80GB}\n", ""), "s.yaml");
  EXPECT_EQ(none.scenario.system.gpu.preset, "h100-sxm");
}

TEST(Loader, AGpuWithoutAPresetMustGiveEveryFigure) {
  // {name: a100} kept the H100's figures under an A100's name.
  EXPECT_EQ(
      error_of(with(kValid, "gpu: {preset: h100-sxm, hbm_capacity: 80GB}", "gpu: {name: a100}")),
      "s.yaml: system.gpu: has no preset, so peak, hbm_bandwidth, hbm_capacity are missing: give "
      "every figure or a "
      "preset (h100-sxm, h200-sxm, a100-sxm-40gb, a100-sxm-80gb, b200, b300, gb200, gb300) (did you mean 'preset: "
      "a100-sxm-80gb'?)");
  LoadedScenario custom =
      parse_scenario(with(kValid, "gpu: {preset: h100-sxm, hbm_capacity: 80GB}",
                          "gpu: {peak: 1PFLOPS, hbm_bandwidth: 4TBps, hbm_capacity: 96GB}"),
                     "s.yaml");
  EXPECT_EQ(custom.scenario.system.gpu.preset, "custom");
  EXPECT_DOUBLE_EQ(custom.scenario.system.gpu.matmul_efficiency, 0.8);
  EXPECT_DOUBLE_EQ(custom.scenario.system.gpu.kernel_latency.value(), 4e-6);
}

TEST(Loader, UnknownGpuPresetsListTheKnownOnes) {
  EXPECT_EQ(error_of(with(kValid, "gpu: {preset: h100-sxm, hbm_capacity: 80GB}", "gpu: h100-sxn")),
            "s.yaml: system.gpu = 'h100-sxn': unknown GPU preset; known: h100-sxm, h200-sxm, "
            "a100-sxm-40gb, "
            "a100-sxm-80gb, b200, b300, gb200, gb300 (did you mean 'h100-sxm'?)");
  EXPECT_EQ(
      error_of(with(kValid, "gpu: {preset: h100-sxm, hbm_capacity: 80GB}", "gpu: [h100-sxm]")),
      "s.yaml: system.gpu = '': must be a preset name or a mapping, found a list");
  EXPECT_EQ(error_of(with(kValid, "preset: h100-sxm", "preset: h300")),
            "s.yaml: system.gpu.preset = 'h300': unknown GPU preset; known: h100-sxm, h200-sxm, "
            "a100-sxm-40gb, "
            "a100-sxm-80gb, b200, b300, gb200, gb300 (did you mean 'b300'?)");
}

using testing::CapturedWarnings;

TEST(Loader, ImplausibleValuesAreUsedWithAWarning) {
  CapturedWarnings warnings;
  std::string text =
      with(with(kValid, "nic_bandwidth: 400Gbps", "nic_bandwidth: 400Tbps, network_latency: 10s"),
           "hbm_capacity: 80GB", "hbm_capacity: 80GB, peak: 989GFLOPS");
  LoadedScenario loaded = parse_scenario(text, "my.yaml");
  // 400 Tb/s is 50 TB/s, beyond the H100's PCIe 5 x16 host link (64 GB/s), which caps it.
  EXPECT_EQ(warnings.text(), "my.yaml: system.gpu.peak = '989GFLOPS': implausibly low for a GPU (< "
                             "1 TFLOP/s); using it anyway\n"
                             "my.yaml: system.topology.nic_bandwidth = '400Tbps': faster than the "
                             "GPU's host link it crosses (pcie_bandwidth 64 GB/s, the h100-sxm's "
                             "PCIe 5 x16), which caps it; set pcie_bandwidth to the NIC's real "
                             "path\n"
                             "my.yaml: system.topology.network_latency = '10s': implausibly high "
                             "for a link hop (> 1 ms); using it anyway\n"
                             "my.yaml: system.topology.nic_bandwidth = '400Tbps': implausibly high "
                             "for a link (> 10 TB/s); using it "
                             "anyway\n");
  // 400 Tb/s = 50 TB/s on every NIC and switch link; the GPU keeps its 989 GFLOP/s.
  EXPECT_DOUBLE_EQ(loaded.topology.link(2 * 16).bandwidth.value(),
                   50e12); // the first leaf link (after 2 x 16 node links)
  EXPECT_DOUBLE_EQ(loaded.scenario.system.gpu.peak.value(), 989e9);
}

TEST(Loader, PlausibleValuesAreQuiet) {
  CapturedWarnings warnings;
  (void)parse_scenario(kValid, "s.yaml");
  EXPECT_EQ(warnings.text(), "");
}

TEST(Loader, PipelineDeeperThanTheModelIsRejected) {
  std::string text = with(with(kValid, "pp: 1", "pp: 8"), "tp: 8", "tp: 1");
  EXPECT_EQ(error_of(text), "s.yaml: execution.pp = '8': exceeds the model's 4 layers");
}

TEST(Loader, TensorParallelismMustDivideHeads) {
  std::string text = with(with(kValid, "heads: 16", "heads: 12"), "d_model: 1024", "d_model: 1020");
  EXPECT_EQ(error_of(text),
            "s.yaml: execution.tp = '8': must divide the model's 12 attention heads");
}

TEST(Loader, ExpertParallelismMustDivideExpertsAndDataParallelism) {
  std::string moe = with(kValid, "seq_len: 1024", "seq_len: 1024\n  experts: 6");
  EXPECT_EQ(error_of(with(moe, "micro_batch: 2", "micro_batch: 2\n  ep: 4")),
            "s.yaml: execution.ep = '4': must divide dp (2)");
  EXPECT_EQ(error_of(with(moe, "dp: 2", "dp: 2\n  ep: 2")), "accepted");
  std::string five = with(kValid, "seq_len: 1024", "seq_len: 1024\n  experts: 5");
  EXPECT_EQ(error_of(with(five, "dp: 2", "dp: 2\n  ep: 2")),
            "s.yaml: execution.ep = '2': must divide the model's 5 experts");
}

TEST(Loader, InterleavingMustDivideLayersAndMicrobatches) {
  // 4 layers over pp 2 x interleave 4 = 8 virtual stages: no whole number of layers each.
  std::string text = with(with(kValid, "pp: 1", "pp: 2\n  schedule: interleaved\n  interleave: 4"),
                          "dp: 2", "dp: 1");
  text = with(text, "global_batch: 8", "global_batch: 4");
  EXPECT_EQ(error_of(text),
            "s.yaml: execution.interleave = '4': pp x interleave = 8 must divide the model's 4 "
            "layers (or first_stage_layers, last_stage_layers, embedding_as_layer or "
            "loss_as_layer must make the split even)");
  EXPECT_EQ(error_of(with(kValid, "pp: 1", "pp: 1\n  interleave: 2")),
            "s.yaml: execution.interleave = '2': needs schedule: interleaved");
}

TEST(Loader, AMicrobatchGroupIsAPositiveCountOfTheInterleavedSchedule) {
  // pp 2 x interleave 2 over 4 layers; 10 sequences over dp 1 in microbatches of 2: 5
  // microbatches, in groups of 4 (4, 1: the last group shorter than pp) or of 3 (3, 2).
  std::string text = with(with(kValid, "pp: 1", "pp: 2\n  schedule: interleaved\n  interleave: 2"),
                          "dp: 2", "dp: 1");
  text = with(text, "global_batch: 8", "global_batch: 10");
  EXPECT_EQ(error_of(with(text, "interleave: 2", "interleave: 2\n  microbatch_group: 0")),
            "s.yaml: execution.microbatch_group = '0': must be greater than zero");
  EXPECT_EQ(error_of(with(text, "interleave: 2", "interleave: 2\n  microbatch_group: 4")),
            "s.yaml: execution.microbatch_group = '4': leaves a last group of 1 of the "
            "microbatches per pipeline (5), fewer than pp (2): its passes would wait on one "
            "another (Megatron-Core refuses it)");
  LoadedScenario three =
      parse_scenario(with(text, "interleave: 2", "interleave: 2\n  microbatch_group: 3"), "s.yaml");
  EXPECT_EQ(three.scenario.execution.microbatch_group, 3);
}

TEST(Loader, ADelayedUpdateIsABooleanThatExcludesDpOverlap) {
  EXPECT_TRUE(parse_scenario(with(kValid, "pp: 1", "pp: 1\n  delayed_update: true"), "s.yaml")
                  .scenario.execution.delayed_update);
  EXPECT_EQ(error_of(with(kValid, "pp: 1", "pp: 1\n  delayed_update: 1step")),
            "s.yaml: execution.delayed_update = '1step': is not true or false");
  EXPECT_EQ(error_of(with(kValid, "pp: 1", "pp: 1\n  delayed_update: true\n  dp_overlap: true")),
            "s.yaml: execution.dp_overlap = 'true': conflicts with delayed_update, which already "
            "runs the whole gradient reduction alongside the next step; set one of the two");
}

TEST(Loader, LaunchOverlapIsABoolean) {
  EXPECT_FALSE(parse_scenario(kValid, "s.yaml").scenario.execution.launch_overlap);
  EXPECT_TRUE(parse_scenario(with(kValid, "pp: 1", "pp: 1\n  launch_overlap: true"), "s.yaml")
                  .scenario.execution.launch_overlap);
  EXPECT_EQ(error_of(with(kValid, "pp: 1", "pp: 1\n  launch_overlap: graphs")),
            "s.yaml: execution.launch_overlap = 'graphs': is not true or false");
}

TEST(Loader, PipelineAndGradientFlagsAreBooleans) {
  LoadedScenario loaded = parse_scenario(
      with(kValid, "pp: 1", "pp: 1\n  pp_scatter_gather: true\n  fp32_gradients: true"), "s.yaml");
  EXPECT_TRUE(loaded.scenario.execution.pp_scatter_gather);
  EXPECT_TRUE(loaded.scenario.execution.fp32_gradients);
  EXPECT_EQ(error_of(with(kValid, "pp: 1", "pp: 1\n  pp_scatter_gather: 2")),
            "s.yaml: execution.pp_scatter_gather = '2': is not true or false");
  EXPECT_EQ(error_of(with(kValid, "pp: 1", "pp: 1\n  fp32_gradients: fp32")),
            "s.yaml: execution.fp32_gradients = 'fp32': is not true or false");
  EXPECT_TRUE(loaded.scenario.execution.grad_accumulation_fusion); // Megatron's default
  EXPECT_FALSE(parse_scenario(with(kValid, "pp: 1", "pp: 1\n  grad_accumulation_fusion: false"),
                              "s.yaml")
                   .scenario.execution.grad_accumulation_fusion);
  EXPECT_EQ(error_of(with(kValid, "pp: 1", "pp: 1\n  grad_accumulation_fusion: unfused")),
            "s.yaml: execution.grad_accumulation_fusion = 'unfused': is not true or false");
}

TEST(Loader, ContextParallelismIsReadAndCountedInTheGrid) {
  // dp 1 x tp 8 x pp 1 x cp 2 = the fat-tree's 16 GPUs; 1024 tokens split into 4 chunks.
  std::string cp = with(kValid, "dp: 2", "dp: 1\n  cp: 2");
  LoadedScenario loaded = parse_scenario(with(cp, "global_batch: 8", "global_batch: 4"), "s.yaml");
  EXPECT_EQ(loaded.scenario.execution.cp, 2);
  EXPECT_EQ(loaded.scenario.execution.gpus(), 16);
  EXPECT_EQ(loaded.scenario.execution.microbatches(), 2); // 4 sequences / (dp 1 x micro 2)
  EXPECT_EQ(error_of(with(kValid, "dp: 2", "dp: 2\n  cp: 2")),
            "s.yaml: execution.dp x tp x pp x cp = '2 x 8 x 1 x 2 = 32': must equal the "
            "topology's 16 GPUs");
  EXPECT_EQ(error_of(with(kValid, "dp: 2", "dp: 2\n  cp: half")),
            "s.yaml: execution.cp = 'half': is not a whole number");
}

TEST(Loader, TwoDimensionalTpIsReadAndCountedInTheGrid) {
  // The MLP-block model, dp 1 x tp 8 x tp_2d 2 x pp 1 = the fat-tree's 16 GPUs.
  std::string mlp = with(with(kValid, "kind: transformer", "kind: mlp"), "dp: 2", "dp: 1");
  LoadedScenario loaded = parse_scenario(with(mlp, "tp: 8", "tp: 8\n  tp_2d: 2"), "s.yaml");
  EXPECT_EQ(loaded.scenario.execution.tp_2d, 2);
  EXPECT_EQ(loaded.scenario.execution.gpus(), 16);
  EXPECT_EQ(error_of(with(mlp, "tp: 8", "tp: 8\n  tp_2d: 4")),
            "s.yaml: execution.dp x tp x tp_2d x pp = '1 x 8 x 4 x 1 = 32': must equal the "
            "topology's 16 GPUs");
  EXPECT_EQ(error_of(with(mlp, "tp: 8", "tp: 8\n  tp_2d: two")),
            "s.yaml: execution.tp_2d = 'two': is not a whole number");
  EXPECT_EQ(error_of(with(with(kValid, "dp: 2", "dp: 1"), "tp: 8", "tp: 8\n  tp_2d: 2")),
            "s.yaml: execution.tp_2d = '2': needs model.kind: mlp (2-D TP is modelled for the "
            "paper's MLP block only)");
}

TEST(Loader, StageSplitKeysAreReadAndChecked) {
  // 4 layers on pp 2 (dp 1 x tp 8 x pp 2 = 16 GPUs).
  std::string two = with(with(kValid, "pp: 1", "pp: 2"), "dp: 2", "dp: 1");
  LoadedScenario loaded = parse_scenario(with(two, "pp: 2", "pp: 2\n  first_stage_layers: 1"),
                                         "s.yaml");
  EXPECT_EQ(loaded.scenario.execution.first_stage_layers, 1);
  EXPECT_EQ(loaded.scenario.execution.last_stage_layers, 0);
  EXPECT_EQ(error_of(with(two, "pp: 2", "pp: 2\n  last_stage_layers: 0")),
            "s.yaml: execution.last_stage_layers = '0': must be greater than zero");
  // 4 layers and the embedding's slot: 5 over 2 stages.
  EXPECT_EQ(error_of(with(two, "pp: 2", "pp: 2\n  embedding_as_layer: true")),
            "s.yaml: execution.embedding_as_layer = 'true': the model's 4 layers and 1 for the "
            "embedding and loss do not divide into pp x chunks = 2 virtual stages");
  EXPECT_EQ(error_of(with(two, "pp: 2", "pp: 2\n  embedding_as_layer: true\n  loss_as_layer: true")),
            "accepted");
  EXPECT_EQ(error_of(with(two, "pp: 2", "pp: 2\n  loss_as_layer: maybe")),
            "s.yaml: execution.loss_as_layer = 'maybe': is not true or false");
  // A written layout: 1 and 3 of the 4 layers.
  loaded = parse_scenario(with(two, "pp: 2", "pp: 2\n  pipeline_layout: Et|tttL"), "s.yaml");
  EXPECT_EQ(loaded.scenario.execution.pipeline_layout.layers, (std::vector<int>{1, 3}));
  EXPECT_EQ(error_of(with(two, "pp: 2", "pp: 2\n  pipeline_layout: Et|tt(tL")),
            "s.yaml: execution.pipeline_layout = 'Et|tt(tL': has a '(' without its ')'");
  EXPECT_EQ(error_of(with(two, "pp: 2", "pp: 2\n  pipeline_layout: Et|ttL")),
            "s.yaml: execution.pipeline_layout = 'Et|ttL': places 3 transformer layers (t); the "
            "model has 4");
}

TEST(Loader, CollectivesMustSupportWhatTheExecutionAsksOf) {
  // ZeRO-1 reduces gradients with a reduce-scatter; the double binary tree only all-reduces.
  EXPECT_EQ(
      error_of(with(kValid, "micro_batch: 2", "micro_batch: 2\n  zero: 1\n  dp_collective: tree")),
      "s.yaml: execution.dp_collective = 'tree': has no reduce-scatter, which this execution "
      "needs");
  EXPECT_EQ(error_of(with(kValid, "micro_batch: 2", "micro_batch: 2\n  tp_collective: pairwise")),
            "s.yaml: execution.tp_collective = 'pairwise': has no all-reduce, which this execution "
            "needs");
  EXPECT_EQ(error_of(with(kValid, "micro_batch: 2", "micro_batch: 2\n  zero: 4")),
            "s.yaml: execution.zero = '4': must be 0, 1, 2 or 3");
}

TEST(Loader, MalformedYamlNamesTheLine) {
  EXPECT_EQ(error_of("model: [1, 2\n"),
            "s.yaml: line 2: not valid YAML: end of sequence flow not found");
  EXPECT_EQ(error_of("model: 3\n"), "s.yaml: model = '': must be a mapping, found a value");
  EXPECT_EQ(error_of(with(kValid, "layers: 4", "layers: {n: 4}")),
            "s.yaml: model.layers = 'a mapping': must be a single value, found a mapping");
}

TEST(Loader, ADirectoryIsNamedAsOne) {
  try {
    (void)load_scenario(TRAINSIM_SOURCE_DIR "/scenarios");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), TRAINSIM_SOURCE_DIR "/scenarios: is a directory, not a scenario file");
  }
}

TEST(Loader, MissingFileIsOneLine) {
  try {
    (void)load_scenario("/nonexistent/s.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "/nonexistent/s.yaml: cannot read the scenario file: No such file or directory");
  }
}

} // namespace
} // namespace trainsim
