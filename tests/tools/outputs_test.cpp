// What runs write for people and programs: the trace, the per-link CSV, the HTML report,
// and the one-line errors of their bad inputs (compare and sweep: compare_sweep_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/error.hpp"
#include "tools/formats/text.hpp"
#include "models/layout.hpp"
#include "models/step_program.hpp"
#include "sim/simulation.hpp"
#include "tools/formats/html_report.hpp"
#include "tools/formats/run_outputs.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tools/formats/trace_writer.hpp"

#include "cli_fixtures.hpp"
#include "file_fixtures.hpp"

namespace {

using namespace trainsim;
namespace fs = std::filesystem;

using trainsim::testing::CliOutput;

TEST(Text, GroupsThousandsAsTheDocsWriteThem) {
  EXPECT_EQ(with_thousands(0), "0");
  EXPECT_EQ(with_thousands(999), "999");
  EXPECT_EQ(with_thousands(4096), "4,096");
  EXPECT_EQ(with_thousands(32768), "32,768");
  EXPECT_EQ(with_thousands(1234567), "1,234,567");
  EXPECT_EQ(with_thousands(-4096), "-4,096");
}

using trainsim::testing::Streams;

CliOutput trainsim(const std::string& arguments, Streams streams = Streams::stdout_and_stderr) {
  return trainsim::testing::run_trainsim(arguments, streams);
}

fs::path temp_dir(const std::string& name) {
  return trainsim::testing::fresh_dir("outputs_test_" + name);
}

std::string read_text(const fs::path& p) { return trainsim::testing::read_file(p); }

LoadedScenario default_scenario() {
  return load_scenario(TRAINSIM_SOURCE_DIR "/scenarios/default.yaml");
}

std::vector<int> all_ranks(const Scenario& s) {
  std::vector<int> r;
  for (int i = 0; i < s.execution.gpus(); ++i) r.push_back(i);
  return r;
}

std::string trace_of(const LoadedScenario& l, const sim::SimResult& r) {
  std::ostringstream out;
  write_trace(out, l.scenario, r);
  return out.str();
}

std::int64_t ns(double seconds) { return std::llround(seconds * 1e9); }

// --- trace ---------------------------------------------------------------------------------------

TEST(Trace, ValidJsonWithOneNamedTrackPerGpu) {
  LoadedScenario l = default_scenario();
  sim::SimResult r = sim::simulate(l.scenario, l.topology,
                                   {sim::Fidelity::fast, false, false, all_ranks(l.scenario)});
  nlohmann::json trace = nlohmann::json::parse(trace_of(l, r));
  std::map<long, std::string> threads;
  std::map<long, std::string> processes;
  for (const auto& ev : trace.at("traceEvents")) {
    if (ev["name"] == "thread_name") threads[ev["tid"].get<long>()] = ev["args"]["name"];
    if (ev["name"] == "process_name") processes[ev["pid"].get<long>()] = ev["args"]["name"];
  }
  // Default scenario: PP 2 -> two processes; 64 GPUs -> 64 main tracks (tid 2R) plus one
  // background track per GPU that overlapped its gradient sync (tid 2R + 1).
  EXPECT_EQ(processes.size(), 2u);
  EXPECT_EQ(processes[1], "stage 1");
  EXPECT_EQ(threads[0], "gpu 0 (tp 0, dp 0, pp 0)");
  EXPECT_EQ(threads[2 * 45], "gpu 45 (tp 5, dp 1, pp 1)"); // 45 = 5 + 8 x (1 + 4 x 1)
  long main_tracks = 0;
  for (const auto& [tid, name] : threads) main_tracks += tid % 2 == 0;
  EXPECT_EQ(main_tracks, 64);
}

TEST(Trace, TheCriticalPathIsAProcessWhoseSlicesCoverTheStep) {
  // Each GPU's stretch on track 0 and each hand-over's transfer on track 1 follow one another
  // from the step's start to its end (the chain, sim/critical_path.hpp): their durations add
  // up to the step time, each rounded to the nanosecond.
  LoadedScenario l = default_scenario();
  sim::SimOptions options{sim::Fidelity::fast, false, false, all_ranks(l.scenario)};
  options.critical_path = true;
  sim::SimResult r = sim::simulate(l.scenario, l.topology, options);
  nlohmann::json trace = nlohmann::json::parse(trace_of(l, r));
  long pid = l.scenario.execution.pp; // after the stages' processes
  bool named = false;
  std::int64_t sum_ns = 0, slices = 0;
  for (const auto& ev : trace.at("traceEvents")) {
    if (ev["pid"].get<long>() != pid) continue;
    if (ev["name"] == "process_name") named = ev["args"]["name"] == "critical path";
    if (ev["ph"] != "X") continue;
    sum_ns += std::llround(ev["dur"].get<double>() * 1000);
    slices += 1;
  }
  EXPECT_TRUE(named);
  EXPECT_EQ(static_cast<size_t>(slices), 2 * r.critical_path.size() - 1);
  // A hand-over that moved data says what it would have taken on idle links and what other
  // flows added: the two make up its slice, to the nanosecond each.
  long priced = 0;
  for (const auto& ev : trace.at("traceEvents")) {
    if (ev["pid"].get<long>() != pid || ev["ph"] != "X" || !ev["args"].contains("alone_us"))
      continue;
    priced += 1;
    double dur = ev["dur"].get<double>(), alone = ev["args"]["alone_us"].get<double>(),
           shared = ev["args"]["shared_us"].get<double>();
    EXPECT_GE(shared, 0.0);
    EXPECT_NEAR(alone + shared, dur, 2e-3) << ev;
  }
  long transfers = std::count_if(r.critical_path.begin(), r.critical_path.end(),
                                 [](const sim::PathStep& st) { return st.alone >= 0; });
  EXPECT_GT(transfers, 0); // the default step's TP, PP and DP hand-overs
  EXPECT_EQ(priced, transfers);
  EXPECT_NEAR(static_cast<double>(sum_ns), static_cast<double>(ns(r.step_time.value())),
              2.0 * static_cast<double>(slices));
}

// The writer prints times from whole nanoseconds, so durations of back-to-back events
// telescope: a main track's sum is exactly its last end, which is the rank's finish time.
// Events on a main track never overlap (each starts where or after the previous ended).
void expect_main_tracks_tile_each_step(const nlohmann::json& trace, const sim::SimResult& r) {
  std::map<long, std::int64_t> sum_ns, end_ns;
  for (const auto& ev : trace.at("traceEvents")) {
    if (ev["ph"] != "X" || ev["tid"].get<long>() % 2 != 0) continue;
    long rank = ev["tid"].get<long>() / 2;
    std::int64_t start = std::llround(ev["ts"].get<double>() * 1000),
                 dur = std::llround(ev["dur"].get<double>() * 1000);
    EXPECT_GE(start, end_ns[rank]) << "overlap on rank " << rank << ": " << ev["name"];
    end_ns[rank] = start + dur;
    sum_ns[rank] += dur;
  }
  std::int64_t longest = 0;
  for (size_t rank = 0; rank < r.ranks.size(); ++rank) {
    EXPECT_NEAR(static_cast<double>(sum_ns[static_cast<long>(rank)]),
                static_cast<double>(ns(r.ranks[rank].finish.value())), 2)
        << "rank " << rank;
    longest = std::max(longest, sum_ns[static_cast<long>(rank)]);
  }
  EXPECT_NEAR(static_cast<double>(longest), static_cast<double>(ns(r.step_time.value())), 2);
}

TEST(Trace, MainTrackDurationsAddUpToEachGpusFinishTime) {
  LoadedScenario l = default_scenario();
  sim::SimResult r = sim::simulate(l.scenario, l.topology,
                                   {sim::Fidelity::fast, false, false, all_ranks(l.scenario)});
  expect_main_tracks_tile_each_step(nlohmann::json::parse(trace_of(l, r)), r);
}

TEST(Trace, InterleavedWithOverlappedGradientsKeepsBackgroundOnItsOwnTrack) {
  ScenarioTree tree = ScenarioTree::parse(read_text(TRAINSIM_SOURCE_DIR "/scenarios/default.yaml"),
                                          "interleaved.yaml");
  for (auto [key, value] : {std::pair{"execution.schedule", "interleaved"},
                            {"execution.interleave", "2"},
                            {"execution.dp_overlap", "true"},
                            {"execution.zero", "1"}})
    tree.set(key, value);
  LoadedScenario l = tree.load();
  sim::SimResult r = sim::simulate(l.scenario, l.topology,
                                   {sim::Fidelity::fast, false, false, all_ranks(l.scenario)});
  std::string json = trace_of(l, r);
  expect_main_tracks_tile_each_step(nlohmann::json::parse(json), r);
  EXPECT_NE(json.find("\"F mb0 chunk1 compute\""), std::string::npos);
  // ZeRO-1 reduce-scatters the gradient buckets, on the rank's second track (tid 2R + 1).
  EXPECT_NE(json.find("\"name\":\"dp gradient bucket reduce-scatter\",\"cat\":\"dp_background\""),
            std::string::npos);
  EXPECT_NE(json.find("\"gpu 0 (tp 0, dp 0, pp 0) background\""), std::string::npos);
}

TEST(Trace, FineModeNamesLayersAndIsByteIdenticalAcrossRuns) {
  LoadedScenario l = default_scenario();
  sim::SimOptions o{sim::Fidelity::fine, false, false, {0}};
  std::string first = trace_of(l, sim::simulate(l.scenario, l.topology, o));
  EXPECT_EQ(first, trace_of(l, sim::simulate(l.scenario, l.topology, o)));
  // Forward runs attention then MLP; backward MLP then attention; each followed by its all-reduce.
  auto at = [&](const std::string& name) { return first.find("\"" + name + "\""); };
  ASSERT_NE(at("F mb3 L5 attention"), std::string::npos);
  EXPECT_LT(at("F mb3 L5 attention"), at("F mb3 L5 mlp"));
  EXPECT_LT(at("B mb3 L5 mlp"), at("B mb3 L5 attention"));
  EXPECT_NE(first.find("\"B mb3 L5 tp all-reduce\""), std::string::npos);
  // Stage 0 receives backward gradients from stage 1.
  EXPECT_NE(first.find("bubble (waiting for gradients of mb0 from stage 1)"), std::string::npos);
}

TEST(TraceRanks, SelectionSyntax) {
  LoadedScenario l = default_scenario(); // TP 8 x DP 4 x PP 2, 8 GPUs per node
  auto sel = [&](const std::string& s) { return parse_rank_selection(s, l.scenario, l.topology); };
  // Pipeline 9 = tp 1, dp 1: ranks 1 + 8 x 1 = 9 (stage 0) and 9 + 32 = 41 (stage 1).
  EXPECT_EQ(sel("pipeline:9"), (std::vector<int>{9, 41}));
  EXPECT_EQ(sel("node:3"), (std::vector<int>{24, 25, 26, 27, 28, 29, 30, 31}));
  EXPECT_EQ(sel("stage:1").size(), 32u);
  EXPECT_EQ(sel("stage:1").front(), 32);
  EXPECT_EQ(sel("0-2,40,1"), (std::vector<int>{0, 1, 2, 40}));
  EXPECT_EQ(sel("all").size(), 64u);
}

TEST(TraceRanks, BadSelectionsAreOneLineInputErrors) {
  LoadedScenario l = default_scenario();
  auto message = [&](const std::string& s) {
    try {
      parse_rank_selection(s, l.scenario, l.topology);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("pipline:0").find("did you mean 'pipeline'"), std::string::npos);
  EXPECT_NE(message("64").find("rank 64 is out of range (there are 64)"), std::string::npos);
  EXPECT_NE(message("stage:2").find("stage 2 is out of range"), std::string::npos);
  EXPECT_NE(message("5-2").find("is empty"), std::string::npos);
  EXPECT_NE(message("0,,1").find("empty term"), std::string::npos);
  EXPECT_NE(message("x").find("--trace-ranks = 'x'"), std::string::npos);
}

TEST(TraceRanks, DefaultKeepsThe16kTraceUnder100MB) {
  LoadedScenario l = load_scenario(TRAINSIM_SOURCE_DIR "/scenarios/reference/16k.yaml");
  std::vector<int> ranks = default_trace_ranks(l.scenario, false);
  // 16384 GPUs x (the estimate per rank) is far above 100 MB, so one pipeline: PP 16 ranks,
  // rank(tp 0, dp 0, stage s) = 8 x 128 x s.
  ASSERT_EQ(ranks.size(), 16u);
  EXPECT_EQ(ranks[1], 1024);
  EXPECT_LT(estimated_trace_bytes_per_rank(l.scenario, false) * 16, 100e6);
  EXPECT_GT(estimated_trace_bytes_per_rank(l.scenario, false) * 16384, 100e6);
}

TEST(TraceCli, UnwritablePathFailsBeforeSimulatingWithExitCodeFive) {
  CliOutput out = trainsim("run --trace /proc/trainsim/trace.json");
  EXPECT_EQ(out.exit_code, 5);
  EXPECT_EQ(out.text, "trainsim: --trace /proc/trainsim/trace.json: cannot write the file\n");
}

TEST(TraceCli, BadSelectionIsExitCodeTwo) {
  CliOutput out =
      trainsim("run --trace " + (temp_dir("sel") / "t.json").string() + " --trace-ranks node:99");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.text.find("--trace-ranks = 'node:99': node 99 is out of range (there are 8)"),
            std::string::npos)
      << out.text;
}

// --- links ---------------------------------------------------------------------------------------

// One node of 8 GPUs on one NVSwitch, TP 8 only: every byte moved is a TP all-reduce.
// NVLink latency 0 by default; LatencyDoesNotAddBytes checks the same with latency.
LoadedScenario tp_only(Seconds nvlink_latency = Seconds(0)) {
  Scenario s;
  s.file = "tp-only.yaml";
  s.model = {
      .name = "tiny", .layers = 4, .d_model = 1024, .d_ff = 4096, .heads = 8, .seq_len = 512};
  s.system.gpu.name = "h100"; // the GpuSpec defaults: 989 TFLOP/s, 0.8, 3.35 TB/s, 80 GB, 4 us
  topo::FatTreeParams fabric{.nodes = 1, .gpus_per_node = 8, .nvlink_latency = nvlink_latency};
  s.system.topology = fabric; // NVLink 450 GB/s and NICs at 400 Gb/s, the defaults
  s.execution = {.tp = 8, .global_batch = 4, .micro_batch = 1};
  return build_scenario(std::move(s));
}

TEST(Links, NvlinkBytesEqualTheRingAllReduceTraffic) {
  LoadedScenario l = tp_only();
  sim::SimResult r = sim::simulate(l.scenario, l.topology, {sim::Fidelity::fast, false, true, {}});
  // Sum over the program of count x n for the TP all-reduces of one rank (every rank runs
  // the same program). A ring all-reduce of n bytes over p ranks sends 2 (p-1)/p x n from
  // each rank; each send crosses 2 NVLink directions (gpu -> nvswitch -> gpu). So the tier
  // carries ranks x sum(count x n) x 2 (p-1)/p x 2.
  double per_rank = 0;
  for (const Op& op : stage_program(l.scenario, 0, false)) {
    if (op.kind != OpKind::collective) continue;
    ASSERT_EQ(op.group, GroupKind::tp);
    ASSERT_EQ(op.collective, sim::CollectiveOp::all_reduce);
    per_rank += op.count * op.bytes.value();
  }
  ASSERT_GT(per_rank, 0);
  double p = 8, expected = 8 * per_rank * 2 * (p - 1) / p * 2;
  std::ostringstream csv;
  write_links_csv(csv, l.topology, r.channel_bytes, r.step_time);
  std::istringstream in(csv.str());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "link,from,to,tier,bandwidth_Bps,bytes,busy_s,utilization");
  double nvlink = 0;
  int rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 8u) << line;
    EXPECT_EQ(f[3], "nvlink") << line;
    nvlink += std::stod(f[5]);
    EXPECT_NEAR(std::stod(f[6]), std::stod(f[5]) / 450e9,
                1e-8 * std::stod(f[6])); // busy = bytes / bandwidth
    ++rows;
  }
  EXPECT_EQ(rows, 16); // 8 GPUs x 2 directions of their NVSwitch link
  EXPECT_NEAR(nvlink, expected, 1e-9 * expected);
  auto tiers = link_tiers_json(l.topology, r.channel_bytes, r.step_time);
  EXPECT_NEAR(tiers["nvlink"]["bytes"].get<double>(), expected, 1e-9 * expected);
}

// With SimGrid's link-load plugin the same run with 0.5 us NVLink latency reported 1886248192
// bytes in fast mode (32 x 225 kB too many) and 8330248192 in fine mode: it integrated link
// usage during each message's latency too. sim/ now counts the bytes it sends.
TEST(Links, LatencyDoesNotAddBytes) {
  LoadedScenario l = tp_only(Seconds(0.5e-6)), zero = tp_only();
  for (sim::Fidelity f : {sim::Fidelity::fast, sim::Fidelity::fine}) {
    auto bytes = [&](const LoadedScenario& x) {
      auto r = sim::simulate(x.scenario, x.topology, {f, false, true, {}});
      return link_tiers_json(x.topology, r.channel_bytes, r.step_time)["nvlink"]["bytes"]
          .get<double>();
    };
    EXPECT_DOUBLE_EQ(bytes(l), bytes(zero));
  }
}

TEST(Links, RunOutWritesLinksCsvAndStagesInResultJson) {
  auto dir = temp_dir("run");
  CliOutput out = trainsim("run --out " + dir.string());
  ASSERT_EQ(out.exit_code, 0) << out.text;
  EXPECT_TRUE(fs::exists(dir / "links.csv"));
  EXPECT_TRUE(fs::exists(dir / "trace.json"));
  auto result = nlohmann::json::parse(read_text(dir / "result.json"));
  ASSERT_EQ(result["stages"].size(), 2u);
  // A stage's categories add up to the step time (idle fills the end).
  double sum = 0;
  for (const auto& [k, v] : result["stages"][0].items())
    if (k != "stage" && k != "gpus") sum += v.get<double>();
  EXPECT_NEAR(sum, result["step_time_s"].get<double>(), 1e-9);
  EXPECT_TRUE(result["link_tiers"].contains("spine"));
}

// --- report --------------------------------------------------------------------------------------

TEST(Report, SelfContainedPageWithEveryChart) {
  auto dir = temp_dir("report");
  ASSERT_EQ(trainsim("run --out " + dir.string()).exit_code, 0);
  CliOutput out = trainsim("report " + dir.string());
  ASSERT_EQ(out.exit_code, 0) << out.text;
  std::string html = read_text(dir / "report.html");
  for (const char* id : {"stage-breakdown", "bound", "timeline", "link-heatmap"})
    EXPECT_NE(html.find(std::string("<svg id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_NE(html.find("<h2>Critical path</h2>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"),
            html.find("http://www.w3.org/2000/svg")); // only the SVG namespace
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(Report, MissingResultIsAnInputError) {
  auto dir = temp_dir("empty");
  CliOutput out = trainsim("report " + dir.string());
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.text,
            "trainsim: " + dir.string() +
                ": no result.json here (write one with: trainsim run SCENARIO --out DIR)\n");
}

} // namespace
