// How charts label quantities: round tick steps, time axes, durations, significant digits.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "models/frontier.hpp"
#include "tools/formats/chart_axis.hpp"

namespace {

using namespace trainsim;

// The text of every <text> element, in order.
std::vector<std::string> labels(const std::string& svg) {
  static const std::regex label("<text [^>]*>([^<]*)</text>");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[1]);
  return out;
}

TEST(ChartAxis, NiceStepIsOneTwoOrFiveTimesAPowerOfTen) {
  // 0.46 s in at most 10 steps: at least 0.046 s each; the next 1-2-5 value is 0.05.
  EXPECT_DOUBLE_EQ(nice_step(0.46, 10), 0.05);
  // 1.5 / 10 = 0.15 -> 0.2; 7 / 10 = 0.7 -> 1; 12.3 / 10 = 1.23 -> 2; exactly 5 / 10 = 0.5 -> 0.5.
  EXPECT_DOUBLE_EQ(nice_step(1.5, 10), 0.2);
  EXPECT_DOUBLE_EQ(nice_step(7, 10), 1);
  EXPECT_DOUBLE_EQ(nice_step(12.3, 10), 2);
  EXPECT_DOUBLE_EQ(nice_step(5, 10), 0.5);
  EXPECT_DOUBLE_EQ(nice_step(0, 10), 0);
}

TEST(ChartAxis, TimeAxisTicksRoundStepsInTheirUnit) {
  // The default scenario's step, ~460 ms: steps of 50 ms, ticks 0, 50, ..., 450 (460 / 50 =
  // 9.2, so ten ticks), then the axis title with the unit.
  std::vector<std::string> expected = {
      "0", "50", "100", "150", "200", "250", "300", "350", "400", "450", "time in the step (ms)"};
  EXPECT_EQ(labels(time_axis(100, 700, 50, Seconds(0.46))), expected);
  // 12.3 s: steps of 2 s, 0 to 12 s.
  expected = {"0", "2", "4", "6", "8", "10", "12", "time in the step (s)"};
  EXPECT_EQ(labels(time_axis(100, 700, 50, Seconds(12.3))), expected);
  // 3 us exactly: steps of 0.5 us are read in ns, and the last tick sits at the end.
  expected = {"0", "500", "1000", "1500", "2000", "2500", "3000", "time in the step (ns)"};
  EXPECT_EQ(labels(time_axis(100, 700, 50, Seconds(3e-6))), expected);
}

TEST(ChartAxis, TicksAreWhereTheirTimeIs) {
  // 0.4 s over 800 px from x = 100: step 0.05 s, so 100 px per tick; the 0.2 s tick at 500.
  std::string axis = time_axis(100, 800, 50, Seconds(0.4));
  EXPECT_NE(axis.find("<text x=\"500.00\" y=\"65.00\" text-anchor=\"middle\">200</text>"),
            std::string::npos)
      << axis;
  EXPECT_NE(axis.find("<text x=\"900.00\" y=\"65.00\" text-anchor=\"middle\">400</text>"),
            std::string::npos)
      << axis;
}

TEST(ChartAxis, DurationsInTheLargestWholeCalendarUnit) {
  // 30-day months and 365-day years, as parse_duration reads them.
  EXPECT_EQ(format_duration(parse_duration("3months")), "3 months");
  EXPECT_EQ(format_duration(parse_duration("90days")), "3 months"); // 90 / 30 = 3
  EXPECT_EQ(format_duration(parse_duration("2160h")), "3 months");  // 2160 / 24 = 90 days
  EXPECT_EQ(format_duration(parse_duration("45days")), "45 days");  // 1.5 months, 6.4 weeks
  EXPECT_EQ(format_duration(parse_duration("14days")), "2 weeks");
  EXPECT_EQ(format_duration(parse_duration("1year")), "1 year");
  EXPECT_EQ(format_duration(Seconds(12 * 3600.0)), "12 hours");
  EXPECT_EQ(format_duration(Seconds(5400)), "90 minutes"); // 1.5 hours
  // 1e7 s is whole in no unit below 1000 of it: 1e7 / 2.592e6 = 3.86 months.
  EXPECT_EQ(format_duration(Seconds(1e7)), "3.9 months");
  EXPECT_EQ(format_duration(Seconds(30)), "30 s");
}

TEST(ChartAxis, SignificantDigitsWithoutPrintfExponents) {
  EXPECT_EQ(significant(1.27032e28, 2), "1.3e28");
  EXPECT_EQ(significant(1.39486e30, 2), "1.4e30");
  EXPECT_EQ(significant(1e24, 2), "1e24");
  EXPECT_EQ(significant(0.64, 2), "0.64");
  EXPECT_EQ(significant(0.8 * 0.8, 2), "0.64");
  EXPECT_EQ(significant(1.5e-5, 2), "1.5e-5");
  EXPECT_EQ(significant(0, 2), "0");
}

} // namespace
