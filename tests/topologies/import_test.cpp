#include "topologies/import.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "route_check.hpp"
#include "tests/support/captured_warnings.hpp"
#include "tests/support/scratch_dir.hpp"
#include "topologies/describe.hpp"
#include "topologies/export.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/spec.hpp"
#include "topologies/shortest_path.hpp"
#include "topologies/torus.hpp"

namespace trainsim::topo {
namespace {

using test::check_all_routes;
using test::error_of;
using trainsim::testing::CapturedWarnings;

Topology read(const std::string& text, GraphFormat format, const std::string& file = "g.csv") {
  std::istringstream in(text);
  return read_topology(in, format, file);
}

// Two 2-GPU nodes whose NVSwitches hang off one switch: a tiny star of stars.
const char* const kTwoNodesCsv = R"(a,b,bandwidth,latency,tier
# node 0
gpu0,nvswitch0,450GBps,0.5us
gpu1,nvswitch0,450GBps,0.5us
# node 1
gpu2,nvswitch1,450GBps,0.5us
gpu3,nvswitch1,450GBps,0.5us
nvswitch0,sw0,50GBps,1us,spine
nvswitch1,sw0,50e9Bps,1e-6s,spine
)";

TEST(Import, CsvEdgeListWithInferredKindsAndTiers) {
  auto t = read(kTwoNodesCsv, GraphFormat::csv);
  EXPECT_EQ(t.gpu_count(), 4);
  EXPECT_EQ(t.gpus_per_node(), 2); // inferred: two GPUs per NVSwitch, contiguous ranks
  EXPECT_EQ(t.link_count(), 6);
  EXPECT_EQ(t.link(0).tier, Tier::nvlink);             // inferred from gpu <-> nvswitch
  EXPECT_DOUBLE_EQ(t.link(5).bandwidth.value(), 50e9); // 50e9Bps: an exponent and a unit
  EXPECT_EQ(check_all_routes(t, false), "");
  std::vector<Hop> hops;
  t.route(0, 3, hops); // gpu0 nvswitch0 sw0 nvswitch1 gpu3: the shortest path
  ASSERT_EQ(hops.size(), 4u);
  EXPECT_EQ(t.hop_name(hops[1]), "nvswitch0->sw0"); // the file's names, not generated ones
  // Measured figures: 4 hops; halves {0,1} | {2,3} meet in one 50 GB/s link.
  auto d = summarize(t);
  EXPECT_TRUE(d.measured);
  EXPECT_EQ(d.diameter, 4);
  EXPECT_DOUBLE_EQ(d.bisection.value(), 50e9);
}

TEST(Import, JsonWithDeclaredVertices) {
  auto t = read(R"({"gpus_per_node": 1,
    "vertices": [{"name": "a", "kind": "gpu"}, {"name": "b", "kind": "gpu"},
                 {"name": "s", "kind": "switch", "level": 2}],
    "links": [{"a": "a", "b": "s", "bandwidth": "400Gbps", "latency": "1us"},
              {"a": "s", "b": "b", "bandwidth": "50GBps", "latency": "1us"}]})",
                GraphFormat::json, "g.json");
  EXPECT_EQ(t.gpu_count(), 2);
  EXPECT_EQ(t.gpus_per_node(), 1);
  EXPECT_EQ(t.graph()[2].level, 2);
  EXPECT_DOUBLE_EQ(t.path_bandwidth(0, 1).value(), 50e9);
  EXPECT_DOUBLE_EQ(t.path_latency(0, 1).value(), 2e-6);
}

// Export then import gives the same graph: ranks, kinds, levels, link ends, bandwidths, tiers.
void expect_same(const Topology& a, const Topology& b) {
  ASSERT_EQ(a.gpu_count(), b.gpu_count());
  ASSERT_EQ(a.link_count(), b.link_count());
  EXPECT_EQ(a.gpus_per_node(), b.gpus_per_node());
  for (int id = 0; id < a.link_count(); ++id) {
    EXPECT_EQ(a.link_ends(id), b.link_ends(id));
    EXPECT_EQ(a.link(id).bandwidth, b.link(id).bandwidth);
    EXPECT_EQ(a.link(id).latency, b.link(id).latency);
    EXPECT_EQ(a.link(id).tier, b.link(id).tier);
  }
  for (auto v : boost::make_iterator_range(boost::vertices(a.graph()))) {
    EXPECT_EQ(a.graph()[v].kind, b.graph()[v].kind);
    EXPECT_EQ(a.graph()[v].level, b.graph()[v].level);
  }
}

TEST(Import, ExportedGraphmlAndJsonReadBackToTheSameGraph) {
  FatTreeParams p;
  p.nodes = 4;
  p.leaf_down_ports = 8;
  auto original = build_fat_tree(p);
  for (auto [format, name] :
       {std::pair{GraphFormat::graphml, "graphml"}, std::pair{GraphFormat::json, "json"}}) {
    std::stringstream file;
    export_topology(original, name, file);
    auto copy = read_topology(file, format, std::string("t.") + name);
    expect_same(original, copy);
    // Measured on the copy = known from the structure: 4 leaves x 8 uplinks at 1:1, so the
    // rank halves (leaves 0-1 | 2-3) meet in 16 x 50 GB/s; 6 hops across leaves.
    auto measured = summarize(copy), known = summarize(original);
    EXPECT_TRUE(measured.measured);
    EXPECT_DOUBLE_EQ(measured.bisection.value(), 800e9);
    EXPECT_DOUBLE_EQ(known.bisection.value(), 800e9);
    EXPECT_EQ(measured.diameter, 6);
    EXPECT_DOUBLE_EQ(measured.oversubscription, known.oversubscription);
    EXPECT_EQ(check_all_routes(copy, true), "");
  }
}

TEST(Import, ShortestPathsSpreadOverEqualCostPaths) {
  // An imported copy of 64 nodes x 8 GPUs on leaves of 8 NICs (64 leaves, 8 spines): the
  // 512 x 504 cross-leaf flows (~32k per spine) must spread like the generator's ECMP does,
  // not all follow the first spine the BFS found.
  FatTreeParams p;
  p.nodes = 64;
  p.leaf_down_ports = 8;
  p.ecmp = "pair"; // every cable built: the copy has 8 spines to spread over
  std::stringstream file;
  export_json(build_fat_tree(p), file);
  auto t = read_topology(file, GraphFormat::json, "t.json");
  std::map<Vertex, int> uses;
  std::vector<Hop> hops;
  for (int s = 0; s < t.gpu_count(); ++s)
    for (int d = 0; d < t.gpu_count(); ++d) {
      hops.clear();
      if (s != d) t.route(s, d, hops);
      for (auto v : test::visited(t, s, hops))
        if (t.graph()[v].kind == VertexKind::net_switch && t.graph()[v].level == 2) ++uses[v];
    }
  ASSERT_EQ(uses.size(), 8u);
  double mean = 512.0 * 504 / 8;
  for (auto [v, n] : uses) EXPECT_NEAR(n, mean, 0.05 * mean) << "spine " << v;
}

TEST(Import, HandWrittenGraphmlWithImplicitKinds) {
  // A 2-D ring of 4 GPUs, no kind attributes: kinds come from the names.
  auto t = read(R"(<?xml version="1.0"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="b" for="edge" attr.name="bandwidth" attr.type="string"/>
  <key id="l" for="edge" attr.name="latency" attr.type="string"/>
  <graph edgedefault="undirected">
    <node id="gpu0"/><node id="gpu1"/><node id="gpu2"/><node id="gpu3"/>
    <edge source="gpu0" target="gpu1"><data key="b">100GBps</data><data key="l">1us</data></edge>
    <edge source="gpu1" target="gpu2"><data key="b">100GBps</data><data key="l">1us</data></edge>
    <edge source="gpu2" target="gpu3"><data key="b">100GBps</data><data key="l">1us</data></edge>
    <edge source="gpu3" target="gpu0"><data key="b">100GBps</data><data key="l">1us</data></edge>
  </graph>
</graphml>)",
                GraphFormat::graphml, "ring.graphml");
  EXPECT_EQ(t.gpu_count(), 4);
  EXPECT_EQ(t.link(0).tier, Tier::direct);
  EXPECT_EQ(check_all_routes(t, false), "");
  // A ring of 4: diameter 2; halves {0,1} | {2,3} meet in 2 links x 100 GB/s.
  auto d = summarize(t);
  EXPECT_EQ(d.diameter, 2);
  EXPECT_DOUBLE_EQ(d.bisection.value(), 200e9);
}

TEST(Import, FileGeneratorResolvesThePathAgainstTheScenario) {
  trainsim::testing::ScratchDir dir("import_test");
  std::ofstream(dir / "two.csv") << kTwoNodesCsv;
  Params params((dir / "scenario.yaml").string(), "system.topology",
                {{"generator", "file"}, {"path", "two.csv"}});
  auto t = build_topology(parse_topology(params));
  EXPECT_EQ(t.gpu_count(), 4);
  Params missing((dir / "scenario.yaml").string(), "system.topology",
                 {{"generator", "file"}, {"path", "none.csv"}});
  EXPECT_EQ(error_of([&] { build_topology(parse_topology(missing)); }),
            (dir / "none.csv").string() +
                ": cannot read the topology file: No such file or directory");
  Params format((dir / "scenario.yaml").string(), "system.topology",
                {{"generator", "file"}, {"path", "two.txt"}});
  EXPECT_EQ(error_of([&] { (void)parse_topology(format); }),
            (dir / "scenario.yaml").string() +
                ": system.topology.format = '': unknown graph format 'txt' (graphml, json or csv; "
                "set format when the "
                "extension says none of these)");
}

TEST(Import, ShortestPathRouterCachesOnlyUsedSources) {
  auto t = build_topology(test::spec({{"generator", "torus"}, {"dims", "4x4"}}));
  std::stringstream file;
  export_json(t, file);
  ImportParams options;
  options.route_cache_mib = 1;
  auto copy = read_topology(file, GraphFormat::json, "t.json", options);
  std::vector<Hop> hops;
  for (int d = 1; d < 16; ++d) copy.route(0, d, hops);
  copy.route(5, 0, hops);
  EXPECT_EQ(dynamic_cast<const ShortestPathRouter&>(copy.router()).trees_built(),
            2); // sources 0 and 5
}

TEST(Import, OddNamesAreQuotedInDot) {
  auto t = read("gpu0,sw\"1,1GBps,1us\ngpu1,sw\"1,1GBps,1us\n", GraphFormat::csv);
  std::ostringstream dot;
  export_dot(t, dot);
  EXPECT_NE(dot.str().find("\"gpu0\" -- \"sw\\\"1\""), std::string::npos) << dot.str();
}

TEST(Import, BadFilesAreOneClearLine) {
  EXPECT_EQ(
      error_of([] { read("gpu0,gpu1,400Gbps\n", GraphFormat::csv); }),
      "g.csv: line 1 = 'gpu0,gpu1,400Gbps': expected 4 or 5 fields: a,b,bandwidth,latency[,tier]");
  EXPECT_EQ(error_of([] { read("gpu0,gpu1,0Gbps,1us\n", GraphFormat::csv); }),
            "g.csv: line 1 bandwidth = '0Gbps': must be greater than zero");
  EXPECT_EQ(error_of([] { read("gpu0,gpu1,-4Gbps,1us\n", GraphFormat::csv); }),
            "g.csv: line 1 bandwidth = '-4Gbps': must be greater than zero");
  EXPECT_EQ(error_of([] { read("gpu0,gpu1,4Gbps,1us,spline\n", GraphFormat::csv); }),
            "g.csv: line 1 tier = 'spline': unknown tier (did you mean 'spine'?)");
  EXPECT_EQ(error_of([] { read("gpu0,gpu1,4Gbps,1us\ngpu2,gpu3,4Gbps,1us\n", GraphFormat::csv); }),
            "g.csv: the graph is disconnected: gpu2 is not reachable from gpu0");
  EXPECT_EQ(error_of([] { read("gpu0,sw0,4Gbps,1us\nsw1,sw2,4Gbps,1us\n", GraphFormat::csv); }),
            "g.csv: the graph is disconnected: sw1 is not reachable from gpu0");
  EXPECT_EQ(
      error_of([] {
        read(R"({"vertices": [{"name": "gpu0"}, {"name": "gpu1"}, {"name": "gpu2"}, {"name": "s"}],
                       "links": [{"a": "gpu0", "b": "s", "bandwidth": "1GBps", "latency": "0s"},
                                 {"a": "gpu1", "b": "s", "bandwidth": "1GBps", "latency": "0s"}]})",
             GraphFormat::json, "g.json");
      }),
      "g.json: gpu2 has no link: no route reaches it");
  EXPECT_EQ(
      error_of([] { read(R"({"gpus_per_node": -8, "links": []})", GraphFormat::json, "g.json"); }),
      "g.json: gpus_per_node = '-8': must be a whole number >= 1");
  EXPECT_EQ(error_of([] { read(R"({"links": [)", GraphFormat::json, "g.json"); }),
            "g.json: malformed JSON: the text ends before the document does (a truncated file?)");
  EXPECT_EQ(error_of([] {
              read(R"({"links": [{"a": "x", "b": "y", "bandwith": 1}]})", GraphFormat::json,
                   "g.json");
            }),
            "g.json: links[0].bandwith = '1': unknown key (did you mean 'bandwidth'?)");
  EXPECT_EQ(error_of([] {
              read("<graphml><graph><node id=\"gpu0\"></graph>", GraphFormat::graphml, "g.graphml");
            }).substr(0, 39),
            "g.graphml: line 1 = '': malformed Graph");
}

TEST(Import, ABareNumberIsRefusedForWantOfItsUnit) {
  // "450" could be B/s, GB/s or Gb/s: a factor of 8 or 1e9 apart.
  EXPECT_EQ(error_of([] { read("gpu0,gpu1,450,1us\n", GraphFormat::csv); }),
            "g.csv: line 1 bandwidth = '450': a bare number: give its unit, e.g. '450GBps'");
  EXPECT_EQ(error_of([] { read("gpu0,gpu1,450GBps,1e-6\n", GraphFormat::csv); }),
            "g.csv: line 1 latency = '1e-6': a bare number: give its unit, e.g. '1us'");
  // A JSON number is as bare as a CSV one.
  EXPECT_EQ(error_of([] {
              read(R"({"links": [{"a": "gpu0", "b": "gpu1", "bandwidth": 5e10, "latency": "1us"}]})",
                   GraphFormat::json, "g.json");
            }),
            "g.json: links[0] bandwidth = '50000000000.0': a bare number: give its unit, e.g. "
            "'450GBps'");
}

TEST(Import, ImplausibleLinksAreUsedWithAWarning) {
  CapturedWarnings warnings;
  // 450Bps (meant: 450GBps) is below the slowest datacenter Ethernet, 1 Gb/s = 125 MB/s;
  // 1s (meant: 1us) is above 1 ms, a link between sites.
  auto t = read("gpu0,gpu1,450Bps,1us\ngpu1,gpu2,450GBps,1s\n", GraphFormat::csv);
  EXPECT_EQ(t.link_count(), 2);
  EXPECT_EQ(warnings.text(),
            "g.csv: line 1 bandwidth = '450Bps': implausibly low for a link (< 1 Gb/s); using it "
            "anyway\n"
            "g.csv: line 2 latency = '1s': implausibly high for a link hop (> 1 ms); using it "
            "anyway\n");
}

TEST(Import, ASecondLinkBetweenTheSameVerticesIsRefused) {
  EXPECT_EQ(error_of([] {
              read("gpu0,sw0,50GBps,1us\ngpu1,sw0,50GBps,1us\nsw0,gpu0,50GBps,1us\n",
                   GraphFormat::csv);
            }),
            "g.csv: line 3 = 'sw0 - gpu0': joins the same two vertices as line 1: give one link "
            "with their total bandwidth");
}

// Two GPUs, each on the NVSwitches of two planes, and the planes on one switch.
const char* const kTwoPlanesCsv = R"(gpu0,nvswitch0,450GBps,0.5us
gpu0,nvswitch1,450GBps,0.5us
gpu1,nvswitch0,450GBps,0.5us
gpu1,nvswitch1,450GBps,0.5us
nvswitch0,sw0,50GBps,1us
)";

TEST(Import, AGpuOnSeveralNvswitchesNeedsTheirPlanesDeclared) {
  EXPECT_EQ(error_of([] { read(kTwoPlanesCsv, GraphFormat::csv); }),
            "g.csv: gpu0 is wired to 2 NVSwitches (nvswitch0, nvswitch1) where nvswitch_planes is "
            "1: fix the links, or set the file section's nvswitch_planes to 2 if every GPU "
            "reaches that many NVSwitch planes (as in a DGX H100)");
  ImportParams planes;
  planes.nvswitch_planes = 2;
  std::istringstream in(kTwoPlanesCsv);
  auto t = read_topology(in, GraphFormat::csv, "g.csv", planes);
  EXPECT_EQ(t.gpus_per_node(), 2); // both GPUs share their first NVSwitch
  // gpu0 to gpu1: two hops over either plane, each 450 GB/s.
  EXPECT_DOUBLE_EQ(t.path_bandwidth(0, 1).value(), 450e9);
  planes.nvswitch_planes = 3;
  std::istringstream again(kTwoPlanesCsv);
  EXPECT_NE(error_of([&] { read_topology(again, GraphFormat::csv, "g.csv", planes); })
                .find("gpu0 is wired to 2 NVSwitches"),
            std::string::npos);
}

TEST(Import, ATruncatedOrMalformedJsonNamesWhereItBreaks) {
  // Cut in the middle of the second link: the parser runs out of text.
  EXPECT_EQ(error_of([] {
              read("{\"links\": [{\"a\": \"gpu0\", \"b\": \"gpu1\", \"bandw", GraphFormat::json,
                   "g.json");
            }),
            "g.json: malformed JSON: the text ends before the document does (a truncated file?)");
  // Line 2, ` {"a" "gpu0"}]}`, lacks the colon after "a": the parser stops at the string after it.
  EXPECT_EQ(error_of([] { read("{\"links\": [\n {\"a\" \"gpu0\"}]}", GraphFormat::json, "g.json"); }),
            "g.json: malformed JSON at line 2, column 7: unexpected \"gpu0\"");
  // `tru` reads as the start of `true` until the `}` that breaks it, the 14th character.
  EXPECT_EQ(error_of([] { read("{\"links\": tru}", GraphFormat::json, "g.json"); }),
            "g.json: malformed JSON at line 1, column 14: unexpected }");
}

TEST(Import, ABinaryFileIsNotAGraph) {
  trainsim::testing::ScratchDir dir("import_binary");
  std::ofstream(dir / "g.csv", std::ios::binary) << std::string("\x7f" "ELF\0\0\1", 7);
  ImportParams p;
  p.path = (dir / "g.csv").string();
  EXPECT_EQ(error_of([&] { import_topology(p); }),
            p.path + ": is a binary file, not a topology file (a text file is expected)");
}

} // namespace
} // namespace trainsim::topo
