// `execution.recompute_modules` as the loader reads it (a YAML list, or words separated by
// commas or spaces as `--set` gives them), one line for every way it can be wrong, and the
// writer's round trip.
#include <gtest/gtest.h>

#include <string>

#include "tools/io/scenario_writer.hpp"
#include "tests/tools/compute_keys_fixtures.hpp"

namespace trainsim {
namespace {

using testing::error_of;
using testing::execution_with;
using testing::model_with;
using testing::with;

// kValid with 8 experts of top 2 (8 GPUs of EP inside its dp 2 x tp 8 is not needed: ep 1).
std::string moe_with(const std::string& execution_lines) {
  return with(model_with("  experts: 8\n  top_k: 2\n"), "execution:\n",
              "execution:\n" + execution_lines);
}

RecomputeModules modules_of_text(const std::string& text) {
  return parse_scenario(text, "s.yaml").scenario.execution.recompute_modules;
}

TEST(RecomputeModulesKeys, ReadsAListOrWordsAndKeepsTheDefaultWhenAbsent) {
  auto bits = [](std::initializer_list<RecomputeModule> ms) {
    RecomputeModules set = 0;
    for (RecomputeModule m : ms) set |= module_bit(m);
    return set;
  };
  EXPECT_EQ(modules_of_text(execution_with("  recompute: selective\n")),
            bits({RecomputeModule::core_attn}));
  EXPECT_EQ(modules_of_text(moe_with("  recompute: selective\n"
                                     "  recompute_modules: [layernorm, moe_act]\n")),
            bits({RecomputeModule::layernorm, RecomputeModule::moe_act}));
  EXPECT_EQ(modules_of_text(moe_with("  recompute: selective\n"
                                     "  recompute_modules: moe_act, core_attn\n")),
            bits({RecomputeModule::moe_act, RecomputeModule::core_attn}));
  EXPECT_EQ(modules_of_text(execution_with("  recompute: selective\n"
                                           "  recompute_modules: layernorm mlp\n")),
            bits({RecomputeModule::layernorm, RecomputeModule::mlp}));
}

TEST(RecomputeModulesKeys, RefusesWithoutSelectiveAndNamesItsModules) {
  EXPECT_EQ(
      error_of(execution_with("  recompute_modules: [layernorm]\n")),
      "s.yaml: execution.recompute_modules = '[layernorm]': needs recompute: selective (it says "
      "what that runs again)");
  EXPECT_EQ(error_of(execution_with("  recompute: full\n  recompute_modules: layernorm\n")),
            "s.yaml: execution.recompute_modules = 'layernorm': needs recompute: selective (it "
            "says what that runs again)");
  EXPECT_EQ(
      error_of(execution_with("  recompute: selective\n  recompute_modules: [layernrom]\n")),
      "s.yaml: execution.recompute_modules = '[layernrom]': 'layernrom' is not a module: must be "
      "one of core_attn, layernorm, mla_up_proj, moe_act, mlp, shared_experts (did you mean "
      "'layernorm'?)");
  EXPECT_EQ(error_of(moe_with("  recompute: selective\n  recompute_modules: [moe]\n")),
            "s.yaml: execution.recompute_modules = '[moe]': 'moe' is not modelled (it runs the "
            "expert layer's all-to-alls again); name its parts: moe_act, shared_experts");
}

TEST(RecomputeModulesKeys, RefusesAModuleTheModelDoesNotHave) {
  EXPECT_EQ(error_of(execution_with("  recompute: selective\n  recompute_modules: mla_up_proj\n")),
            "s.yaml: execution.recompute_modules = 'mla_up_proj': needs latent attention "
            "(model.attention_kind: mla)");
  EXPECT_EQ(error_of(execution_with("  recompute: selective\n  recompute_modules: moe_act\n")),
            "s.yaml: execution.recompute_modules = 'moe_act': needs routed experts (model.experts "
            "above 1)");
  EXPECT_EQ(error_of(moe_with("  recompute: selective\n  recompute_modules: shared_experts\n")),
            "s.yaml: execution.recompute_modules = 'shared_experts': needs shared experts "
            "(model.shared_experts)");
  EXPECT_EQ(error_of(moe_with("  recompute: selective\n  recompute_modules: mlp\n")),
            "s.yaml: execution.recompute_modules = 'mlp': runs a dense layer's MLP again, and "
            "every layer of this model has experts (moe_act and shared_experts are theirs)");
}

TEST(RecomputeModulesKeys, TheWriterStatesThemOnlyWhereTheyDifferFromTheDefault) {
  Scenario s = parse_scenario(moe_with("  recompute: selective\n"
                                       "  recompute_modules: [moe_act, layernorm]\n"),
                              "s.yaml")
                   .scenario;
  std::string text = scenario_yaml(s);
  EXPECT_NE(text.find("recompute_modules: layernorm, moe_act"), std::string::npos) << text;
  EXPECT_EQ(modules_of_text(text), s.execution.recompute_modules);
  Scenario plain = parse_scenario(execution_with("  recompute: selective\n"), "s.yaml").scenario;
  EXPECT_EQ(scenario_yaml(plain).find("recompute_modules"), std::string::npos);
}

} // namespace
} // namespace trainsim
