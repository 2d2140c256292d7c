// goodput.svg (tools/formats/goodput_plot.hpp); tests/tools/report_test.cpp shows it in the
// HTML report.
#include <gtest/gtest.h>

#include <string>

#include "tools/formats/goodput_plot.hpp"

namespace trainsim {
namespace {

GoodputCurves curves() {
  GoodputCurves c;
  c.by_interval = {{60, 0.80}, {600, 0.92}, {6000, 0.85}};
  c.chosen_interval = 600;
  c.by_size = {{1000, 0.99}, {100000, 0.65}, {1e6, 0.0}};
  c.job_gpus = 16384;
  return c;
}

TEST(GoodputPlot, DrawsBothCurvesWithTheChosenIntervalAndTheJobMarked) {
  std::string svg = goodput_svg(curves());
  EXPECT_EQ(svg.rfind("<svg id=\"goodput\"", 0), 0u) << svg.substr(0, 80);
  EXPECT_NE(svg.find("goodput against the checkpoint interval"), std::string::npos);
  EXPECT_NE(svg.find("goodput against the cluster size (GPUs)"), std::string::npos);
  // Two curves, each a path through its three points.
  size_t first = svg.find("<path d=\"M"), second = svg.find("<path d=\"M", first + 1);
  ASSERT_NE(second, std::string::npos);
  EXPECT_EQ(svg.find("<path d=\"M", second + 1), std::string::npos);
  EXPECT_NE(svg.find(">chosen</text>"), std::string::npos);
  EXPECT_NE(svg.find(">this job</text>"), std::string::npos);
  // Decades on the size axis, 1e3 to 1e6 (the axis labels' own format).
  EXPECT_NE(svg.find(">1e3</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">1e6</text>"), std::string::npos);
}

} // namespace
} // namespace trainsim
