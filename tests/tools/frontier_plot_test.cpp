// frontier.svg as people read it: calendar durations, FLOP to two significant digits, the
// knee threshold labelled, and a note where a latency wall leaves the paper's ~1e31.
#include <gtest/gtest.h>

#include <string>

#include "tools/formats/frontier_output.hpp"

namespace {

using namespace trainsim;

FrontierPoint point(double flop, double utilization) {
  FrontierPoint p;
  p.shape.compute = Flop(flop);
  p.feasible = true;
  p.times.utilization = utilization;
  return p;
}

FrontierCurve curve(const std::string& name, double knee, double wall) {
  FrontierCurve c;
  c.name = name;
  c.max_utilization = 0.8;
  c.points = {point(1e24, 0.8), point(1e28, 0.65), point(wall, 0.02)};
  c.utilization_knee = Flop(knee);
  c.latency_wall = Flop(wall);
  return c;
}

// The baseline's numbers (docs/closed-form.md, section 3): dense knee 1.27e28 and wall
// 1.39e30, below the paper's window; a second curve whose wall, 1e31, is inside it.
FrontierResult baseline_like() {
  FrontierResult r; // default options: h100, 7.776e6 s, knee fraction 0.8, 1e24 to 1e32
  r.curves = {curve("dense", 1.27032e28, 1.39486e30), curve("moe", 1.15631e28, 1e31)};
  return r;
}

TEST(FrontierPlot, DurationInCalendarUnitsAndFlopToTwoDigits) {
  std::string svg = frontier_svg(baseline_like());
  // 7.776e6 s / (30 x 86400 s) = 3 months.
  EXPECT_NE(svg.find("(h100, 3 months)"), std::string::npos);
  EXPECT_EQ(svg.find("Ms)"), std::string::npos);
  EXPECT_NE(svg.find(">dense knee 1.3e28</text>"), std::string::npos);
  EXPECT_NE(svg.find(">dense wall 1.4e30</text>"), std::string::npos);
  EXPECT_NE(svg.find(">moe knee 1.2e28</text>"), std::string::npos);
  EXPECT_EQ(svg.find("e+"), std::string::npos); // no printf exponents anywhere
}

TEST(FrontierPlot, TheKneeThresholdIsALabelledLineDrawnOnce) {
  std::string svg = frontier_svg(baseline_like());
  // Both curves: 0.8 x 0.8 = 0.64, so one line and one label. The plot runs from y = 440
  // (utilization 0) to y = 40 (1): 0.64 sits at 440 - 0.64 x 400 = 184.
  EXPECT_NE(svg.find("y1=\"184.00\" x2=\"780.00\" y2=\"184.00\" stroke=\"gray\""),
            std::string::npos);
  std::string label = "knee threshold 0.64 (0.8 x max 0.8)";
  EXPECT_NE(svg.find(label), std::string::npos);
  EXPECT_EQ(svg.find(label), svg.rfind(label));
}

TEST(FrontierPlot, AWallOutsideThePapersWindowIsExplainedOnThePlot) {
  std::string svg = frontier_svg(baseline_like());
  // log10(1.39e30) = 30.14 < 30.5: listed; log10(1e31) = 31 is inside [30.5, 31.5]: not.
  EXPECT_NE(svg.find(">dense wall 1.4e30 FLOP, below it</text>"), std::string::npos);
  EXPECT_EQ(svg.find("moe wall 1e31 FLOP"), std::string::npos);
  EXPECT_NE(svg.find("docs/closed-form.md explains why."), std::string::npos);
}

TEST(FrontierPlot, WallsInsideTheWindowNeedNoNote) {
  FrontierResult r = baseline_like();
  r.curves[0] = curve("dense", 1.27e28, 9.5e30); // 10^30.98: inside
  EXPECT_EQ(frontier_svg(r).find("docs/closed-form.md"), std::string::npos);
}

TEST(FrontierPlot, AWallAtTheSweepsEndIsALowerLimit) {
  FrontierResult r = baseline_like();
  r.curves[1] = curve("moe", 1.1e29, 1e32); // still feasible at max_flop: the wall is further out
  std::string svg = frontier_svg(r);
  EXPECT_NE(svg.find(">moe wall &gt;= 1e32</text>"), std::string::npos);
  EXPECT_NE(svg.find(">moe wall &gt;= 1e32 FLOP, above it</text>"), std::string::npos);
}

} // namespace
