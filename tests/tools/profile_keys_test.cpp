// The per-operator profile's keys (models/scenario.hpp OperatorProfile, docs/scenario-format.md):
// what pricing per operator brings besides the layers' kernels, each on by default there, off
// under the roofline, each turned off on its own, shown in provenance and refused where it
// cannot apply.
#include <gtest/gtest.h>

#include <string>

#include "models/gpu_speed.hpp"
#include "models/step_compute.hpp"
#include "tests/tools/loader_fixtures.hpp"
#include "tools/io/provenance.hpp"
#include "tools/io/scenario_loader.hpp"

namespace trainsim {
namespace {

using testing::error_of;
using testing::with;

// A 16-GPU transformer with a vocabulary and ZeRO-1 over dp 2: every feature has work to do.
const std::string kValid = R"(model:
  kind: transformer
  layers: 4
  d_model: 1024
  d_ff: 4096
  heads: 16
  seq_len: 1024
  vocab: 32000
system:
  gpu: {preset: h100-sxm}
  topology: {generator: fat-tree, nodes: 2, nic_bandwidth: 400Gbps}
execution:
  dp: 2
  tp: 8
  global_batch: 8
  zero: 1
)";

Scenario with_model_lines(const std::string& lines) {
  return parse_scenario(with(kValid, "  vocab: 32000\n", "  vocab: 32000\n" + lines), "s.yaml")
      .scenario;
}

// Which features a scenario's pricing uses, read from the functions that price them.
struct Used {
  bool embedding, optimizer, clipping, curve, uneven;
  friend bool operator==(const Used&, const Used&) = default;
};
Used used(const Scenario& s) {
  return {embedding_time(s).forward.total() > Seconds(), optimizer_time(s, 0).total() > Seconds(),
          clips_over_dp(s), collective_efficiency(s) != nullptr, slowest_gpu(s) > 1.0};
}

TEST(ProfileKeys, EachIsOnPerOperatorAndTurnsOffAlone) {
  Scenario all = with_model_lines("");
  EXPECT_EQ(used(all), (Used{true, true, true, true, true}));
  EXPECT_EQ(used(with_model_lines("  embedding_kernels: false\n")),
            (Used{false, true, true, true, true}));
  EXPECT_EQ(used(with_model_lines("  optimizer_step: false\n")),
            (Used{true, false, true, true, true}));
  EXPECT_EQ(used(with_model_lines("  gradient_clipping: false\n")),
            (Used{true, true, false, true, true}));
  EXPECT_EQ(used(with_model_lines("  nvlink_curve: false\n")),
            (Used{true, true, true, false, true}));
  EXPECT_EQ(used(with_model_lines("  uneven_gpus: false\n")),
            (Used{true, true, true, true, false}));
  // The head's kernels go with the embedding's: both are the vocabulary's.
  EXPECT_EQ(head_time(with_model_lines("  embedding_kernels: false\n")).forward.total(),
            Seconds());
}

TEST(ProfileKeys, TheRooflineUsesNoneAndProvenanceSaysSo) {
  Scenario roofline =
      parse_scenario(with(kValid, "  vocab: 32000\n", "  compute: roofline\n"), "s.yaml").scenario;
  EXPECT_EQ(used(roofline), (Used{false, false, false, false, false}));
  auto model = provenance_json(roofline).at("scenario").at("model");
  for (const char* key :
       {"embedding_kernels", "optimizer_step", "gradient_clipping", "nvlink_curve", "uneven_gpus"})
    EXPECT_EQ(model.at(key), false) << key;
  auto per_operator = provenance_json(with_model_lines("  nvlink_curve: false\n"))
                          .at("scenario").at("model");
  EXPECT_EQ(per_operator.at("optimizer_step"), true);
  EXPECT_EQ(per_operator.at("nvlink_curve"), false);
}

TEST(ProfileKeys, RefusedWhereTheyCannotApply) {
  std::string roofline = with(kValid, "  vocab: 32000\n", "  compute: roofline\n");
  EXPECT_EQ(error_of(with(roofline, "  compute: roofline\n",
                          "  compute: roofline\n  optimizer_step: true\n")),
            "s.yaml: model.optimizer_step = 'true': needs compute: operators (the roofline "
            "prices the layers' kernels only)");
  // Off under the roofline says what already holds.
  EXPECT_NO_THROW((void)parse_scenario(
      with(roofline, "  compute: roofline\n", "  compute: roofline\n  uneven_gpus: false\n"),
      "s.yaml"));
  std::string mlp = with(with(kValid, "kind: transformer", "kind: mlp"), "  vocab: 32000\n", "");
  EXPECT_EQ(error_of(with(mlp, "  seq_len: 1024\n", "  seq_len: 1024\n  nvlink_curve: false\n")),
            "s.yaml: model.nvlink_curve = 'false': applies to kind: transformer only (the "
            "MLP-block model is priced as a roofline, without the per-operator profile)");
  // A spread the file asks for where it cannot apply would silently do nothing; 0 says what
  // holds.
  std::string spread = "{preset: h100-sxm, speed_spread: 0.02}";
  EXPECT_EQ(error_of(with(roofline, "{preset: h100-sxm}", spread)),
            "s.yaml: system.gpu.speed_spread = '0.02': applies to a transformer priced per "
            "operator with model.uneven_gpus on (the roofline runs every GPU at the figures)");
  EXPECT_NE(error_of(with(with(kValid, "{preset: h100-sxm}", spread), "  vocab: 32000\n",
                          "  vocab: 32000\n  uneven_gpus: false\n"))
                .find("system.gpu.speed_spread"),
            std::string::npos);
  EXPECT_NO_THROW((void)parse_scenario(
      with(roofline, "{preset: h100-sxm}", "{preset: h100-sxm, speed_spread: 0}"), "s.yaml"));
  EXPECT_NE(error_of(with(kValid, "  vocab: 32000\n", "  vocab: 32000\n  gradient_clipping: maybe\n"))
                .find("model.gradient_clipping"),
            std::string::npos);
}

} // namespace
} // namespace trainsim
