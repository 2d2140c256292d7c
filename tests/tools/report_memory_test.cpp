// The memory block of every run's report (tools/formats/report_memory.hpp): each stage's
// weights, gradients, optimizer state and activations against the GPU's capacity.
#include "tests/sim/step_fixtures.hpp"

#include <sstream>

#include "tools/formats/report_memory.hpp"

namespace trainsim {
namespace {

using namespace testing;

TEST(ReportMemory, EveryStageHoldsItsShareAgainstTheCapacity) {
  // Two MLP layers of 2 x 4096 x 16384 = 134,217,728 parameters each, pp 2: a stage holds one
  // layer, 268.4 MB of BF16 weights, as many gradient bytes, 12 B a parameter of optimizer
  // state (FP32 master weights and Adam's two moments): 1.61 GB.
  Scenario s = scenario(four_nodes(), {.dp = 2, .pp = 2, .global_batch = 4}, mlp(2));
  nlohmann::ordered_json j = memory_json(s);
  EXPECT_DOUBLE_EQ(j.at("capacity_bytes").get<double>(), 80e9);
  ASSERT_EQ(j.at("stages").size(), 2u);
  for (const auto& stage : j.at("stages")) {
    EXPECT_DOUBLE_EQ(stage.at("weights_bytes").get<double>(), 134217728.0 * 2);
    EXPECT_DOUBLE_EQ(stage.at("gradients_bytes").get<double>(), 134217728.0 * 2);
    EXPECT_DOUBLE_EQ(stage.at("optimizer_bytes").get<double>(), 134217728.0 * 12);
    EXPECT_GT(stage.at("activations_bytes").get<double>(), 0.0);
  }
  std::ostringstream text;
  print_memory(text, s);
  EXPECT_NE(text.str().find("per GPU, of 80 GB HBM"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("stage 1"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("optimizer 1.61 GB"), std::string::npos) << text.str();
}

} // namespace
} // namespace trainsim
