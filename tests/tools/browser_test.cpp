// The HTML report in a real browser: headless Chromium (Debian's chromium package, installed
// by tools/build.sh) loads the page and dumps the DOM it rendered; every chart must be there
// with drawn shapes in it. Skipped, with a message, where chromium is not installed.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>
#include <sys/wait.h>

#include "tests/support/scratch_dir.hpp"

namespace {

namespace fs = std::filesystem;

const char* kChromium = "/usr/bin/chromium";

std::string run(const std::string& command, int& exit_code) {
  std::string text;
  FILE* pipe = popen((command + " 2>/dev/null").c_str(), "r");
  std::array<char, 4096> buffer{};
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) text.append(buffer.data(), n);
  int status = pclose(pipe);
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return text;
}

// No network, no first-run work, a throwaway profile: the page must render from the file alone.
std::string dump_dom(const fs::path& page, const fs::path& profile) {
  int code = 0;
  std::string dom =
      run(std::string("timeout 120 ") + kChromium +
              " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
              " --disable-background-networking --disable-component-update --disable-sync"
              " --user-data-dir=" +
              profile.string() + " --dump-dom file://" + page.string(),
          code);
  EXPECT_EQ(code, 0) << "chromium failed";
  return dom;
}

// The shapes inside <svg id="ID">...</svg> of the rendered DOM.
int shapes_in(const std::string& dom, const std::string& id) {
  auto begin = dom.find("<svg id=\"" + id + "\"");
  if (begin == std::string::npos) return -1;
  std::string svg = dom.substr(begin, dom.find("</svg>", begin) - begin);
  static const std::regex shape("<(rect|line|path|polyline|circle)[ >]");
  return static_cast<int>(
      std::distance(std::sregex_iterator(svg.begin(), svg.end(), shape), std::sregex_iterator()));
}

TEST(Browser, ReportRendersEveryChartWithContent) {
  if (!fs::exists(kChromium))
    GTEST_SKIP() << kChromium << " not found: install Debian's chromium (tools/build.sh does)";
  trainsim::testing::ScratchDir dir("browser_test");
  fs::create_directories(dir / "profile");
  int code = 0;
  run(std::string(TRAINSIM_BINARY) + " run --out " + (dir / "result").string(), code);
  ASSERT_EQ(code, 0);
  // One level per decade keeps the frontier quick; its plot is what the page embeds.
  run(std::string(TRAINSIM_BINARY) + " frontier --points-per-decade 1 --out " +
          (dir / "result").string(),
      code);
  ASSERT_EQ(code, 0);
  run(std::string(TRAINSIM_BINARY) + " report " + (dir / "result").string(), code);
  ASSERT_EQ(code, 0);
  std::string dom = dump_dom(fs::absolute(dir / "result" / "report.html"), dir / "profile");
  ASSERT_NE(dom.find("<h1>trainsim report</h1>"), std::string::npos) << dom.substr(0, 500);
  // Default scenario: 2 stages x up to 7 categories; 2 bound bars; 16 tracks of events;
  // 4 tiers x 7 utilization bands.
  EXPECT_GE(shapes_in(dom, "stage-breakdown"), 2 * 5);
  EXPECT_GE(shapes_in(dom, "bound"), 2);
  EXPECT_GE(shapes_in(dom, "timeline"), 16 * 10);
  EXPECT_GE(shapes_in(dom, "link-heatmap"), 4 * 7);
  // The bound's 5 non-zero terms (hbm is 0) and the 6 non-zero categories (ep_comm is 0),
  // besides the two legends; the heatmap's colour scale, 7 bands x 4 shades; the frontier's
  // two curves.
  EXPECT_GE(shapes_in(dom, "bound"), 6 + 7 + 5 + 6);
  EXPECT_GE(shapes_in(dom, "link-heatmap"), 4 * 7 + 7 * 4);
  EXPECT_GE(shapes_in(dom, "frontier"), 2);
  EXPECT_NE(dom.find(">time in the step (ms)</text>"), std::string::npos);
}

} // namespace
