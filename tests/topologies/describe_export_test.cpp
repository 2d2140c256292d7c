#include "topologies/describe.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "route_check.hpp"
#include "tests/support/scratch_dir.hpp"
#include "topologies/export.hpp"
#include "topologies/spec.hpp"

namespace trainsim::topo {
namespace {

using test::params;
using test::spec;

TEST(Describe, PrintsCountsTiersBisectionDiameterOversubscription) {
  // 2 nodes x 8 GPUs on leaves of 8 NICs at 2:1 -> 2 leaves, 4 spines, every cable built.
  auto t = build_topology(spec({{"generator", "fat-tree"},
                                {"nodes", "2"},
                                {"leaf_down_ports", "8"},
                                {"oversubscription", "2"},
                                {"ecmp", "pair"}}));
  std::ostringstream out;
  describe(t, out);
  // Bisection: min(8 NICs x 50 GB/s = 400 GB/s, 2 leaves x 4 uplinks / 2 x 50 GB/s = 200 GB/s).
  EXPECT_EQ(out.str(), "gpus: 16 (2 nodes x 8 per NVLink domain)\n"
                       "nvswitches: 2\n"
                       "nics: 16\n"
                       "switches: 2 leaf, 4 spine\n"
                       "links: 56\n"
                       "  nvlink: 16 x 450 GB/s (total 7.2 TB/s per direction)\n"
                       "  host: 16 x 64 GB/s (total 1.02 TB/s per direction)\n"
                       "  leaf: 16 x 50 GB/s (total 800 GB/s per direction)\n"
                       "  spine: 8 x 50 GB/s (total 400 GB/s per direction)\n"
                       "bisection bandwidth: 200 GB/s per direction\n"
                       "diameter: 6 hops GPU to GPU\n"
                       "oversubscription: 2:1\n");
}

TEST(Export, DotNamesEveryVertexAndLink) {
  auto t = build_topology(spec({{"generator", "torus"}, {"dims", "2x2"}}));
  std::ostringstream out;
  export_dot(t, out);
  std::string dot = out.str();
  EXPECT_EQ(dot.rfind("graph topology {", 0), 0u);
  EXPECT_NE(dot.find("\"gpu3\" [shape=box"), std::string::npos);
  // 2x2: one link per ring of two, 2 rings per dimension -> 4 edges.
  size_t edges = 0;
  for (size_t at = dot.find(" -- "); at != std::string::npos; at = dot.find(" -- ", at + 1))
    ++edges;
  EXPECT_EQ(edges, 4u);
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
}

TEST(Export, DotRendersWithGraphviz) {
  if (std::system("dot -V > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "Graphviz (dot) is not installed";
  trainsim::testing::ScratchDir dir("export_test");
  auto path = dir / "fat_tree.dot";
  std::ofstream(path) << [] {
    std::ostringstream out;
    export_dot(
        build_topology(spec({{"generator", "fat-tree"}, {"nodes", "2"}, {"leaf_down_ports", "8"}})),
        out);
    return out.str();
  }();
  std::string command = "dot -Tsvg '" + path.string() + "' -o /dev/null 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0);
}

TEST(Export, UnknownFormatSuggestsOne) {
  auto t = build_topology(spec({{"generator", "torus"}, {"dims", "2x2"}}));
  std::ostringstream out;
  EXPECT_EQ(test::error_of([&] { export_topology(t, "graphm", out); }),
            "command line: --format = 'graphm': unknown export format (dot, graphml or json) (did "
            "you mean 'graphml'?)");
}

} // namespace
} // namespace trainsim::topo
