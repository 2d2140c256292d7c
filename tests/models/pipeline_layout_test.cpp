// Megatron-Core's pipeline layout notation: what a written layout places on each virtual
// stage, and the one-line reason when it places nothing.
#include "models/pipeline_layout.hpp"

#include <gtest/gtest.h>

namespace trainsim {
namespace {

std::vector<int> layers_of(const std::string& text) {
  ParsedLayout parsed = parse_pipeline_layout(text);
  EXPECT_EQ(parsed.problem, "") << text;
  return parsed.layout.layers;
}

std::string problem_of(const std::string& text) { return parse_pipeline_layout(text).problem; }

TEST(PipelineLayout, DeepSeekV3sRecipeLayoutIsSixteenVirtualStages) {
  // Megatron-Bridge's DeepSeek-V3 layout for pp 2 x vp 8: "E" + 4 layers, then "(t*4|)*14"
  // expands to 14 stages of 4, then "tmL": 1 layer, the module, the loss. 16 stages,
  // 4 + 14 x 4 + 1 = 61 layers, 1 module.
  ParsedLayout parsed = parse_pipeline_layout("Et*4|(t*4|)*14tmL");
  ASSERT_EQ(parsed.problem, "");
  std::vector<int> expected(16, 4);
  expected.back() = 1;
  EXPECT_EQ(parsed.layout.layers, expected);
  EXPECT_EQ(parsed.layout.total_layers(), 61);
  EXPECT_EQ(parsed.layout.mtp, 1);
  EXPECT_EQ(parsed.layout.text, "Et*4|(t*4|)*14tmL");
}

TEST(PipelineLayout, CommasAndSpacesAreCosmeticAndRepeatsNest) {
  // "Ettt|(tt|)*29,mL": 3 layers, 29 stages of 2, a last stage holding only the module and
  // the loss: 31 stages. (Megatron-Core's own example gives the module a stage of its own,
  // "..,m|L", which trainsim refuses: below.)
  std::vector<int> expected{3};
  expected.insert(expected.end(), 29, 2);
  expected.push_back(0);
  EXPECT_EQ(layers_of("Ettt|(tt|)*29,mL"), expected);
  // "|*3" repeats the boundary: two empty stages between.
  EXPECT_EQ(layers_of("Et|*3tL"), (std::vector<int>{1, 0, 0, 1}));
  // ((t*2)*3|)*2 nests: 6 layers a stage, twice, then the loss alone.
  EXPECT_EQ(layers_of("E((t*2)*3|)*2 L"), (std::vector<int>{6, 6, 0}));
  // One stage holding everything: a pipeline of one.
  EXPECT_EQ(layers_of("EttttL"), (std::vector<int>{4}));
}

TEST(PipelineLayout, EachMalformedLayoutGetsOneReason) {
  EXPECT_EQ(problem_of("Et*4|x|L"),
            "has 'x', which is not in the notation (t a layer, E the embedding, L the loss, m a "
            "multi-token-prediction module, | a stage's end, (..)*n a repeat)");
  EXPECT_EQ(problem_of("E(tt|L"), "has a '(' without its ')'");
  EXPECT_EQ(problem_of("Ett)|L"), "has a ')' without its '('");
  EXPECT_EQ(problem_of("E*2t|L"), "places the embedding (E) other than first in the first "
                                  "virtual stage");
  EXPECT_EQ(problem_of("Et*|L"), "has a '*' without a positive count after it");
  EXPECT_EQ(problem_of("Et*0|L"), "has a '*' without a positive count after it");
  EXPECT_EQ(problem_of("*3EtL"), "has a '*' with nothing before it to repeat");
  EXPECT_EQ(problem_of("tt|ttL"), "does not begin with the embedding (E)");
  EXPECT_EQ(problem_of("Ett|tt"), "does not end with the loss (L)");
  EXPECT_EQ(problem_of("EtLt|t"), "places the loss (L) other than last in the last virtual stage");
  EXPECT_EQ(problem_of("Ett|m|L"),
            "places a multi-token-prediction module (m) before the last virtual stage; trainsim "
            "runs the modules on the last, beside the loss");
  EXPECT_EQ(problem_of("E(t*1000|)*1001L"), "expands to more than a million layers and stages");
  EXPECT_EQ(problem_of(""), "does not begin with the embedding (E)");
}

} // namespace
} // namespace trainsim
