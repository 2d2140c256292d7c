// What the reports show people: the HTML report's charts (drawn from hand-made result.json,
// trace and link rows, so each expectation follows from the input) and the text report.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tools/formats/goodput_plot.hpp"
#include "tools/formats/html_report.hpp"
#include "tools/formats/link_heatmap.hpp"
#include "tools/formats/report.hpp"
#include "tools/formats/report_charts.hpp"

#include "cli_fixtures.hpp"
#include "file_fixtures.hpp"

namespace {

using namespace trainsim;
namespace fs = std::filesystem;

using trainsim::testing::run_trainsim;
using trainsim::testing::Streams;

fs::path temp_dir(const std::string& name) {
  return trainsim::testing::fresh_dir("report_test_" + name);
}

std::string read_text(const fs::path& p) { return trainsim::testing::read_file(p); }

// Relative luminance (ITU-R BT.709 weights) of "#rrggbb": lower is darker.
double luminance(const std::string& hex) {
  unsigned r = 0, g = 0, b = 0;
  EXPECT_EQ(std::sscanf(hex.c_str(), "#%2x%2x%2x", &r, &g, &b), 3) << hex;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// The fill of the heatmap cell whose hover title ends with `title_tail`.
std::string cell_fill(const std::string& svg, const std::string& title_tail) {
  std::smatch m;
  std::regex cell("fill=\"([^\"]+)\"><title>[^<]*: " + title_tail);
  if (!std::regex_search(svg, m, cell)) return "no cell: " + title_tail;
  return m[1];
}

// A run of 8 GPUs (TP 8, one stage) whose step of 400 ms is 300 ms compute + 100 ms TP.
nlohmann::json small_result() {
  nlohmann::json categories = {{"compute", 0.3}, {"tp_comm", 0.1}, {"pp_comm", 0.0},
                               {"dp_comm", 0.0}, {"ep_comm", 0.0}, {"bubble", 0.0},
                               {"idle", 0.0}};
  nlohmann::json stage = categories;
  stage["stage"] = 0;
  stage["gpus"] = 8;
  return {
      {"scenario", "small.yaml"},
      {"model", "small"},
      {"gpus", 8},
      {"parallelism", {{"dp", 1}, {"tp", 8}, {"pp", 1}, {"microbatches", 1}, {"schedule", "1f1b"}}},
      {"step_time_s", 0.4},
      {"mfu", 0.5},
      {"breakdown", categories},
      {"bound", {{"step_time_s", 0.35}, {"limiting", "compute"}}},
      {"stages", {stage}}};
}

// The <svg id="ID">...</svg> of a page.
std::string chart(const std::string& html, const std::string& id) {
  auto begin = html.find("<svg id=\"" + id + "\"");
  if (begin == std::string::npos) return "";
  return html.substr(begin, html.find("</svg>", begin) - begin);
}

// --- timeline and breakdown axes -----------------------------------------------------------------

TEST(ReportAxes, TimelineAndStagesHaveATimeAxisOfTheStep) {
  // One GPU computing for the first 300 ms (trace times are microseconds) of a 400 ms
  // step: ticks every 50 ms, 0 to 400, under both charts.
  nlohmann::json trace = {{"traceEvents",
                           {{{"ph", "M"},
                             {"name", "thread_name"},
                             {"pid", 0},
                             {"tid", 0},
                             {"args", {{"name", "gpu 0"}}}},
                            {{"ph", "X"},
                             {"name", "F mb0 compute"},
                             {"cat", "compute"},
                             {"ts", 0},
                             {"dur", 300000},
                             {"pid", 0},
                             {"tid", 0}}}}};
  std::string html = render_report({small_result(), trace, {}, "", ""});
  for (const char* id : {"timeline", "stage-breakdown"}) {
    std::string svg = chart(html, id);
    EXPECT_NE(svg.find(">time in the step (ms)</text>"), std::string::npos) << id;
    for (const char* tick : {">0</text>", ">50</text>", ">200</text>", ">400</text>"})
      EXPECT_NE(svg.find(tick), std::string::npos) << id << " " << tick;
  }
}

// --- bound --------------------------------------------------------------------------------------

// small_result() with its 350 ms bound split into terms: 250 ms compute, 100 ms network.
nlohmann::json with_bound_terms(nlohmann::json result) {
  result["bound"]["terms"] = {
      {{"name", "compute"}, {"seconds", 0.25}, {"explanation", "compute-bound kernels"}},
      {{"name", "hbm"}, {"seconds", 0.0}, {"explanation", "HBM-bound kernels"}},
      {{"name", "network"}, {"seconds", 0.1}, {"explanation", "TP all-reduces & co"}}};
  return result;
}

TEST(BoundChart, StacksTheTermsAboveTheSimulatedBreakdown) {
  std::string html = render_report({with_bound_terms(small_result()), std::nullopt, {}, "", ""});
  std::string svg = chart(html, "bound");
  // Shares of the 350 ms bound: 250 / 350 = 71.4 %, 100 / 350 = 28.6 %; the zero hbm term
  // draws nothing. Shares of the 400 ms step: 300 / 400 = 75 %, 100 / 400 = 25 %.
  for (const char* segment :
       {"<title>compute: 250 ms (71.4%)</title>", "<title>network: 100 ms (28.6%)</title>",
        "<title>compute: 300 ms (75.0%)</title>", "<title>tp_comm: 100 ms (25.0%)</title>"})
    EXPECT_NE(svg.find(segment), std::string::npos) << segment;
  EXPECT_EQ(svg.find("<title>hbm:"), std::string::npos);
  EXPECT_NE(svg.find(">time in the step (ms)</text>"), std::string::npos);
  // Below the chart, each term with what it counts (escaped).
  EXPECT_NE(
      html.find("<td>network</td><td>100 ms</td><td>28.6%</td><td>TP all-reduces &amp; co</td>"),
      std::string::npos);
}

TEST(BoundChart, AnOlderResultWithoutTermsDrawsTheTotal) {
  std::string svg = chart(render_report({small_result(), std::nullopt, {}, "", ""}), "bound");
  EXPECT_NE(svg.find("<title>bound: 350 ms (100.0%)</title>"), std::string::npos) << svg;
}

TEST(BoundChart, ResultJsonCarriesTheBoundsTerms) {
  auto dir = temp_dir("bound_terms");
  ASSERT_EQ(run_trainsim("run --out " + dir.string()).exit_code, 0);
  auto bound = nlohmann::json::parse(read_text(dir / "result.json")).at("bound");
  // closed_form_bound: the terms in a fixed order, the bound their sum, the limiting one
  // the largest.
  std::vector<std::string> names,
      expected = {"compute", "hbm", "latency", "network", "pipeline_bubble", "dp_allreduce"};
  double sum = 0, largest = 0;
  std::string limiting;
  for (const auto& t : bound.at("terms")) {
    names.push_back(t.at("name"));
    double s = t.at("seconds").get<double>();
    sum += s;
    if (s > largest) largest = s, limiting = names.back();
    EXPECT_FALSE(t.at("explanation").get<std::string>().empty()) << names.back();
  }
  EXPECT_EQ(names, expected);
  EXPECT_NEAR(sum, bound.at("step_time_s").get<double>(), 1e-12);
  EXPECT_EQ(bound.at("limiting"), limiting);
}

// --- what the categories mean ------------------------------------------------------------------

// `text` with every run of whitespace as one space: wrapped lines read as one.
std::string collapsed(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool space = c == ' ' || c == '\n';
    if (!space)
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  }
  return out;
}

TEST(CategoryLegend, EveryBreakdownCategoryIsDefined) {
  auto json = run_trainsim("run --json", Streams::stdout_only);
  ASSERT_EQ(json.exit_code, 0) << json.text;
  std::vector<std::string> keys, defined;
  auto result = nlohmann::ordered_json::parse(json.text); // in the order result.json has them
  for (const auto& [key, value] : result.at("breakdown").items()) keys.push_back(key);
  for (sim::Category c : sim::kCategories) defined.emplace_back(sim::name(c));
  EXPECT_EQ(keys, defined); // a new category cannot go undefined
}

TEST(CategoryLegend, TextReportDefinesEachCategoryUnderItsBreakdown) {
  auto run = run_trainsim("run", Streams::stdout_only);
  ASSERT_EQ(run.exit_code, 0) << run.text;
  std::string text = collapsed(run.text);
  for (sim::Category c : sim::kCategories)
    EXPECT_NE(text.find(std::string(sim::name(c)) + ": " + sim::meaning(c)), std::string::npos)
        << sim::name(c);
  for (const std::string& line :
       {std::string("    idle: "), std::string("  where each GPU's time goes\n")})
    EXPECT_NE(run.text.find(line), std::string::npos) << line;
}

TEST(CategoryLegend, HtmlReportAndDocsUseTheSameWords) {
  std::string html = render_report({small_result(), std::nullopt, {}, "", ""});
  std::string docs = collapsed(read_text(TRAINSIM_SOURCE_DIR "/docs/outputs.md"));
  for (sim::Category c : sim::kCategories) {
    std::string name = sim::name(c), meaning = sim::meaning(c);
    EXPECT_NE(html.find(name + "</td><td>" + meaning + "</td>"), std::string::npos) << name;
    EXPECT_NE(docs.find("- `" + name + "`: " + meaning), std::string::npos) << name;
  }
}

// --- one colour per phase -----------------------------------------------------------------------

TEST(PhaseColours, EachPhaseHasOneColourInEveryChartAndNoTwoShareOne) {
  // The breakdown's category, the trace's kinds and the bound's term of one phase: one colour.
  std::vector<std::vector<std::string>> phases = {
      {"compute"},
      {"tp_comm", "tp", "tp_background"},
      {"pp_comm", "pp_transfer"},
      {"pp_send_wait"},
      {"dp_comm", "dp", "dp_background", "dp_allreduce"},
      {"ep_comm", "ep"},
      {"cp_comm", "cp"},
      {"bubble", "pipeline_bubble"},
      {"idle"},
      {"hbm"},
      {"latency"},
      {"network"}};
  std::set<std::string> used;
  for (const auto& keys : phases) {
    for (const auto& key : keys) EXPECT_EQ(colour(key), colour(keys.front())) << key;
    EXPECT_NE(colour(keys.front()), "#999999") << keys.front() << " has no colour of its own";
    EXPECT_TRUE(used.insert(colour(keys.front())).second)
        << keys.front() << " shares its colour with another phase";
  }
  for (sim::Category c : sim::kCategories) // a new category cannot go uncoloured
    EXPECT_NE(colour(sim::name(c)), "#999999") << sim::name(c);
}

// --- what was simulated, memory
// -------------------------------------------------------------------

TEST(HtmlReport, ResolvedValuesReadInTheirUnitsAndMemoryPerStageIsShown) {
  nlohmann::json r = small_result();
  nlohmann::json d64 = nlohmann::json::array({141e12, 192e12});
  r["provenance"] = {
      {"trainsim", "test"},
      {"input", {{"file", "small.yaml"}, {"hash", "abc"}}},
      {"scenario",
       {{"model", {{"layers", 32}, {"d_ff", 11008.0}}},
        {"system",
         {{"gpu",
           {{"peak_flop_per_s", 989e12},
            {"hbm_efficiency", 0.8656716417910447},
            {"flash_attention_flop_per_s", {{"d64", d64}}}}},
          {"topology", {{"pcie_bandwidth", "6.4e+10Bps"}, {"nvlink_latency", "0.5us"}}}}},
        {"execution", {{"dp_bucket_bytes", 80e6}}}}}};
  // Stage 0 holds 1 + 1 + 6 + 12 = 20 GB of 80 GB: 25.0%.
  r["memory"] = {{"capacity_bytes", 80e9},
                 {"stages",
                  {{{"stage", 0},
                    {"weights_bytes", 1e9},
                    {"gradients_bytes", 1e9},
                    {"optimizer_bytes", 6e9},
                    {"activations_bytes", 12e9},
                    {"total_bytes", 20e9}}}}};
  std::string html = render_report({r, std::nullopt, {}, "", ""});
  for (const char* shown :
       {"<th>system.gpu.peak_flop_per_s</th><td>989 TFLOP/s</td>",
        "<th>system.gpu.hbm_efficiency</th><td>0.8657</td>",
        "<th>system.gpu.flash_attention_flop_per_s</th><td>d64: 141 TFLOP/s, 192 TFLOP/s</td>",
        "<th>system.topology.pcie_bandwidth</th><td>64 GB/s</td>",
        "<th>system.topology.nvlink_latency</th><td>0.5us</td>", // as the user wrote it
        "<th>execution.dp_bucket_bytes</th><td>80 MB</td>", "<th>model.layers</th><td>32</td>",
        "<th>model.d_ff</th><td>11008</td>", "<h2>Memory per GPU</h2>", "<th>of 80 GB</th>",
        "<tr><td>0</td><td>1 GB</td><td>1 GB</td><td>6 GB</td><td>12 GB</td><td>20 GB</td>"
        "<td>25.0%</td></tr>"})
    EXPECT_NE(html.find(shown), std::string::npos) << shown;
  // Long values wrap inside the page instead of widening it.
  EXPECT_NE(html.find("overflow-wrap: anywhere"), std::string::npos);
}

TEST(HtmlReport, ListsTheScenariosFaults) {
  nlohmann::json r = small_result();
  r["provenance"] = {{"trainsim", "test"},
                     {"input", {{"file", "f.yaml"}, {"hash", "abc"}}},
                     {"scenario",
                      {{"model", nlohmann::json::object()},
                       {"system", {{"gpu", nlohmann::json::object()}, {"topology", nlohmann::json::object()}}},
                       {"execution", nlohmann::json::object()},
                       {"faults",
                        {{"slow_gpus", {"node 1 at 0.8 of the kernel rate"}},
                         {"degraded_links", nlohmann::json::array()}}}}}};
  std::string html = render_report({r, std::nullopt, {}, "", ""});
  EXPECT_NE(html.find("<th>faults.slow_gpus</th><td>node 1 at 0.8 of the kernel rate</td>"),
            std::string::npos);
}

TEST(TextReport, SaysWhichRailsRanOnTheirOwn) {
  // degraded-link.yaml halves rank 3's NIC link: rail 3 runs its own flows, GPU 0 of each
  // node runs for the other 7 (sim/rail_bundle.hpp), and result.json says which.
  std::string file = TRAINSIM_SOURCE_DIR "/scenarios/examples/degraded-link.yaml";
  auto text = run_trainsim("run " + file, Streams::stdout_only);
  ASSERT_EQ(text.exit_code, 0) << text.text;
  EXPECT_NE(collapsed(text.text).find("rail bundling: each node's GPU 0 ran for its 7 healthy "
                                      "rails, GPU 3 (on a degraded link) for its own"),
            std::string::npos)
      << text.text;
  auto json = run_trainsim("run " + file + " --json", Streams::stdout_only);
  ASSERT_EQ(json.exit_code, 0) << json.text;
  auto sim = nlohmann::json::parse(json.text).at("sim");
  EXPECT_EQ(sim.at("rail_bundle"), 8);
  EXPECT_EQ(sim.at("rail_leader"), 0);
  EXPECT_EQ(sim.at("own_rails"), nlohmann::json::array({3}));
}

TEST(TextReport, FollowsTheCriticalPathUnlessToldNotTo) {
  // slow-node.yaml slows node 1 (ranks 8-15) to 0.8 and rank 30 to 0.9: the path runs on the
  // slow node's GPUs, and result.json lists its stretches from the step's start to its end.
  std::string file = TRAINSIM_SOURCE_DIR "/scenarios/examples/slow-node.yaml";
  auto json = run_trainsim("run " + file + " --json", Streams::stdout_only);
  ASSERT_EQ(json.exit_code, 0) << json.text;
  auto result = nlohmann::json::parse(json.text);
  const auto& path = result.at("critical_path");
  int slow = path.at("slow_on").at(0).at("rank");
  EXPECT_GE(slow, 8);
  EXPECT_LE(slow, 15);
  const auto& steps = path.at("steps");
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.front().at("start_s"), 0.0);
  EXPECT_NEAR(steps.back().at("end_s").get<double>(), result.at("step_time_s").get<double>(),
              1e-12);
  auto text = run_trainsim("run " + file + " --no-critical-path", Streams::stdout_only);
  ASSERT_EQ(text.exit_code, 0) << text.text;
  EXPECT_EQ(text.text.find("critical path"), std::string::npos) << text.text;
}

TEST(TextReport, SaysWhatSharedLinksCostTheHandOvers) {
  // 391 ms of pipeline transfers of which 90.6 ms were other flows on their links; a
  // millionth of a transfer is SimGrid's timing and is not named.
  CriticalPath::HandOvers shared{"pp", 56, Seconds(0.391), Seconds(0.0906)};
  EXPECT_EQ(hand_over_time(shared), "391 ms, 90.6 ms of it on shared links");
  CriticalPath::HandOvers alone{"dp", 4, Seconds(0.293), Seconds(0.293e-6)};
  EXPECT_EQ(hand_over_time(alone), "293 ms");
  // result.json carries both, and each transfer's idle-link time (null for the start).
  std::string file = TRAINSIM_SOURCE_DIR "/scenarios/examples/failed-spine.yaml";
  auto json = run_trainsim("run " + file + " --json", Streams::stdout_only);
  ASSERT_EQ(json.exit_code, 0) << json.text;
  auto result = nlohmann::json::parse(json.text);
  const auto& path = result.at("critical_path");
  const auto& first = path.at("hand_overs").at(0);
  EXPECT_GT(first.at("contention_s").get<double>(), 0.0);
  EXPECT_LT(first.at("contention_s").get<double>(), first.at("transfer_s").get<double>());
  EXPECT_TRUE(path.at("steps").at(0).at("alone_s").is_null());
}

TEST(HtmlReport, ShowsGoodputWhenTheRunDirectoryHasIt) {
  GoodputCurves c{{{60, 0.8}, {600, 0.9}}, 600, {{1000, 0.99}, {1e6, 0.0}}, 16384};
  std::string html = render_report({small_result(), std::nullopt, {}, "", goodput_svg(c)});
  EXPECT_NE(html.find("<h2>Goodput over a run</h2>"), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"goodput\""), std::string::npos);
  EXPECT_EQ(render_report({small_result(), std::nullopt, {}, "", ""}).find("Goodput over a run"),
            std::string::npos);
}

// --- link heatmap --------------------------------------------------------------------------------

TEST(LinkHeatmap, ShadeRunsFromNearWhiteThroughOrangeToDarkRed) {
  // Stops #fff7ec, #fc8d59, #7f0000 at scale positions 0, 1/2, 1; the 7 band edges
  // 0, 1, 2, 5, 10, 20, 50, 100 % sit at positions 0, 1/7, ..., 1.
  EXPECT_EQ(utilization_shade(0), "#fff7ec");
  EXPECT_EQ(utilization_shade(1), "#7f0000");
  EXPECT_EQ(utilization_shade(3),
            "#7f0000"); // a link busier than the step is as dark as a full one
  // 5 % is edge 3, position 3/7, 6/7 of the way from the first stop to the second:
  // 255 - 3 x 6/7 = 252.4 -> fc, 247 - 106 x 6/7 = 156.1 -> 9c, 236 - 147 x 6/7 = 110 -> 6e.
  EXPECT_EQ(utilization_shade(0.05), "#fc9c6e");
  // 35 % is halfway through the 20-50 % band: position 5.5/7, 4/7 of the way from the second
  // stop to the third: 252 - 125 x 4/7 = 180.6 -> b5, 141 - 141 x 4/7 = 60.4 -> 3c,
  // 89 - 89 x 4/7 = 38.1 -> 26.
  EXPECT_EQ(utilization_shade(0.35), "#b53c26");
  for (double u : {0.0, 0.005, 0.01, 0.03, 0.05, 0.07, 0.1, 0.2, 0.3, 0.5, 0.8})
    EXPECT_GT(luminance(utilization_shade(u)), luminance(utilization_shade(u + 0.01))) << u;
}

TEST(LinkHeatmap, TheHottestSparseBandIsTheDarkest) {
  // The default scenario's spine tier: 78 link directions near 3 % and 8 near 7 %. Shaded
  // by link count the 8 busy ones were the palest cell of the row.
  std::vector<LinkUse> links(78, {"spine", 0.03});
  links.insert(links.end(), 8, {"spine", 0.07});
  std::string svg = link_heatmap(links);
  std::string sparse = cell_fill(svg, "8 link directions"),
              dense = cell_fill(svg, "78 link directions");
  EXPECT_EQ(sparse, utilization_shade(0.07));
  EXPECT_EQ(dense, utilization_shade(0.03));
  EXPECT_LT(luminance(sparse), luminance(dense));
}

TEST(LinkHeatmap, ACellIsShadedByItsHottestLinkAndSaysSo) {
  // Three leaf directions in the 5-10 % band at 5, 6 and 9 %: the cell shows 3 and 9.0 %.
  std::vector<LinkUse> links = {{"leaf", 0.05}, {"leaf", 0.09}, {"leaf", 0.06}};
  std::string svg = link_heatmap(links);
  EXPECT_EQ(cell_fill(svg, "3 link directions, the hottest at 9.0%"), utilization_shade(0.09));
  EXPECT_NE(svg.find(">3 (max 9.0%)</text>"), std::string::npos);
  EXPECT_NE(svg.find("utilization of the cell's hottest link direction"),
            std::string::npos); // the legend
}

TEST(LinkHeatmap, WithoutLinkStatisticsTheReportSaysSo) {
  ReportInputs in{
      small_result(), std::nullopt, {}, "", ""}; // --no-link-stats: no link_tiers, no links.csv
  std::string html = render_report(in);
  EXPECT_NE(html.find("link statistics were not recorded (--no-link-stats)"), std::string::npos);
  EXPECT_EQ(html.find("<svg id=\"link-heatmap\""), std::string::npos);
  in.result["link_tiers"] = nlohmann::json::object(); // recorded, but nothing moved
  EXPECT_NE(render_report(in).find("no link carried bytes in this step"), std::string::npos);
  in.result["link_tiers"] = {{"nvlink", {{"bytes", 1.0}}}};
  EXPECT_NE(render_report(in).find("links.csv is missing from the run directory"),
            std::string::npos);
}

TEST(LinkHeatmap, RunWithoutLinkStatisticsThenReport) {
  auto dir = temp_dir("no_link_stats");
  auto run = run_trainsim("run --no-link-stats --out " + dir.string());
  ASSERT_EQ(run.exit_code, 0) << run.text;
  ASSERT_EQ(run_trainsim("report " + dir.string()).exit_code, 0);
  std::string html = read_text(dir / "report.html");
  EXPECT_NE(
      html.find(
          "<h2>Link utilization by tier</h2>\n<p class=\"note\">link statistics were not recorded "
          "(--no-link-stats)</p>"),
      std::string::npos);
}

} // namespace
