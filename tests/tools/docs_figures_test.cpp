// Every figure the README and docs/ quote from the binary is marked where it is quoted,
//   <!-- figure: run SCENARIO step = 750 ms -->   (or `mfu = 25.0 %`)
// and must be what `trainsim run SCENARIO` prints today, so that a change of the model that
// moves it fails here instead of leaving the docs wrong. The quoted text must also appear
// within a few lines after the marker, where a reader sees it.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "file_fixtures.hpp"
#include "tools/formats/text.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tools/study/evaluate.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

struct Quote {
  std::string doc, scenario, figure, value;
  bool seen = false; ///< the value appears in the visible text after the marker
};

std::vector<Quote> quotes() {
  std::vector<fs::path> docs{fs::path(TRAINSIM_SOURCE_DIR) / "README.md"};
  for (const auto& entry : fs::directory_iterator(fs::path(TRAINSIM_SOURCE_DIR) / "docs"))
    if (entry.path().extension() == ".md") docs.push_back(entry.path());
  static const std::regex marker(R"(<!--\s*figure:\s+run\s+(\S+)\s+(step|mfu)\s+=\s+(.+?)\s*-->)");
  std::vector<Quote> out;
  for (const fs::path& doc : docs) {
    std::string text = testing::read_file(doc);
    for (std::sregex_iterator m(text.begin(), text.end(), marker), end; m != end; ++m) {
      Quote q{doc.filename().string(), (*m)[1], (*m)[2], (*m)[3]};
      auto after = static_cast<size_t>(m->position() + m->length());
      q.seen = text.substr(after, 600).find(q.value) != std::string::npos;
      out.push_back(q);
    }
  }
  return out;
}

TEST(DocsFigures, EveryMarkedFigureIsWhatTheBinaryPrintsToday) {
  std::vector<Quote> all = quotes();
  ASSERT_GE(all.size(), 3u) << "the markers were lost";
  std::map<std::string, StepSummary> runs; // one simulation per scenario, as `trainsim run`
  for (const Quote& q : all) {
    EXPECT_TRUE(q.seen) << q.doc << ": '" << q.value << "' is not quoted after its marker";
    if (!runs.count(q.scenario))
      runs[q.scenario] =
          evaluate(load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/" + q.scenario), {}).summary;
    const StepSummary& s = runs.at(q.scenario);
    std::string now = q.figure == "step" ? format(s.step_time) : percent(s.mfu);
    EXPECT_EQ(q.value, now) << q.doc << " quotes " << q.scenario << "'s " << q.figure;
  }
}

} // namespace
} // namespace trainsim
