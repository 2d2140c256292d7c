#include "topologies/fat_tree.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "route_check.hpp"
#include "topologies/describe.hpp"
#include "topologies/spec.hpp"

namespace trainsim::topo {
namespace {

using test::check_all_routes;
using test::error_of;
using test::params;
using test::spec;

int tier_links(const Description& d, Tier tier) {
  for (const auto& s : d.tiers)
    if (s.tier == tier) return s.links;
  return 0;
}

TEST(FatTree, TwoTierOversubscribedCountsBisectionAndDiameter) {
  // 4 nodes x 8 GPUs = 32 GPUs; 8 NICs per leaf -> 4 leaves; 8 / 2 = 4 uplinks -> 4 spines.
  auto t = build_topology(spec({{"generator", "fat-tree"}, {"ecmp", "pair"},
                                {"nodes", "4"},
                                {"leaf_down_ports", "8"},
                                {"oversubscription", "2"}}));
  auto d = summarize(t);
  EXPECT_EQ(d.gpus, 32);
  EXPECT_EQ(d.nvswitches, 4);
  EXPECT_EQ(d.nics, 32);
  EXPECT_EQ(d.switches_per_level, (std::vector<int>{0, 4, 4}));
  // One nvlink, host and leaf link per GPU; 4 leaves x 4 spines.
  EXPECT_EQ(tier_links(d, Tier::nvlink), 32);
  EXPECT_EQ(tier_links(d, Tier::host), 32);
  EXPECT_EQ(tier_links(d, Tier::leaf), 32);
  EXPECT_EQ(tier_links(d, Tier::spine), 16);
  EXPECT_EQ(d.links, 112);
  // Bisection: min(half the NICs 16 x 50 GB/s = 800 GB/s, half the leaf uplinks 16 / 2 x 50 GB/s =
  // 400 GB/s).
  EXPECT_DOUBLE_EQ(d.bisection.value(), 400e9);
  EXPECT_DOUBLE_EQ(rank_halves_cut(t).value(),
                   400e9);  // ranks 0-15 are leaves 0-1: 8 uplinks x 50 GB/s
  EXPECT_EQ(d.diameter, 6); // gpu nic leaf spine leaf nic gpu
  EXPECT_DOUBLE_EQ(d.oversubscription, 2.0);
  EXPECT_EQ(check_all_routes(t, true), "");
}

TEST(FatTree, ThreeTierIsTheClassicFourAryFatTree) {
  // k = 4: 16 GPUs (2 per node, one NIC each), 8 leaves of 2 down + 2 up ports, pods of
  // k/2 = 2 leaves and 2 spines -> 4 pods, 8 spines; 2 planes x k/2 = 4 cores.
  auto t = build_topology(spec({{"generator", "fat-tree"}, {"ecmp", "pair"},
                                {"nodes", "8"},
                                {"gpus_per_node", "2"},
                                {"leaf_down_ports", "2"},
                                {"tiers", "3"},
                                {"radix", "4"}}));
  auto d = summarize(t);
  EXPECT_EQ(d.gpus, 16);
  EXPECT_EQ(d.switches_per_level, (std::vector<int>{0, 8, 8, 4}));
  // leaf-spine: 8 leaves x 2; spine-core: 8 spines x 2.
  EXPECT_EQ(tier_links(d, Tier::spine), 16);
  EXPECT_EQ(tier_links(d, Tier::core), 16);
  // Every tier cut is 8 x 50 GB/s: 8 NICs, 16 / 2 leaf uplinks, 16 / 2 spine uplinks.
  EXPECT_DOUBLE_EQ(d.bisection.value(), 400e9);
  EXPECT_DOUBLE_EQ(rank_halves_cut(t).value(), 400e9);
  EXPECT_EQ(d.diameter, 8); // gpu nic leaf spine core spine leaf nic gpu
  EXPECT_EQ(check_all_routes(t, true), "");
  std::vector<Hop> hops;
  t.route(0, 15, hops);
  EXPECT_EQ(hops.size(), 8u);
}

TEST(FatTree, RoutesStayInsideTheNodeAndTheLeaf) {
  auto t =
      build_topology(spec({{"generator", "fat-tree"}, {"nodes", "8"}, {"leaf_down_ports", "16"}}));
  std::vector<Hop> hops;
  t.route(1, 6, hops); // same node: over the NVSwitch
  ASSERT_EQ(hops.size(), 2u);
  EXPECT_EQ(t.hop_name(hops[0]), "gpu1->nvswitch0");
  EXPECT_EQ(t.hop_name(hops[1]), "nvswitch0->gpu6");
  hops.clear();
  t.route(1, 9, hops); // ranks 0-15 share leaf 0
  ASSERT_EQ(hops.size(), 4u);
  EXPECT_EQ(t.hop_name(hops[1]), "nic1->leaf0");
  EXPECT_EQ(t.hop_name(hops[2]), "leaf0->nic9");
}

TEST(FatTree, RailOptimizedPutsNicKOnRailLeafK) {
  // 4 nodes of 4 GPUs, 2 nodes per rail leaf: rank r of node n is on leaf (n / 2) * 4 + r % 4.
  auto t = build_topology(spec({{"generator", "rail-optimized"}, {"ecmp", "pair"},
                                {"nodes", "4"},
                                {"gpus_per_node", "4"},
                                {"leaf_down_ports", "2"}}));
  auto d = summarize(t);
  EXPECT_EQ(d.switches_per_level,
            (std::vector<int>{0, 8, 2})); // 2 groups x 4 rails; 2 uplinks per leaf
  std::vector<Hop> hops;
  t.route(1, 5, hops); // node 0 rail 1 -> node 1 rail 1: both on leaf 1
  ASSERT_EQ(hops.size(), 4u);
  EXPECT_EQ(t.hop_name(hops[1]), "nic1->leaf1");
  hops.clear();
  t.route(1, 9, hops); // node 2 rail 1 is on leaf 5: over a spine
  ASSERT_EQ(hops.size(), 6u);
  EXPECT_EQ(t.hop_name(hops[1]), "nic1->leaf1");
  EXPECT_EQ(t.hop_name(hops[4]), "leaf5->nic9");
  EXPECT_EQ(check_all_routes(t, true), "");
}

TEST(FatTree, RailOptimizedThreeTierRoutesUpAndDown) {
  // 16 nodes x 4 GPUs, 2 nodes per rail leaf: 8 groups x 4 rails = 32 leaves; radix 4 -> pods
  // of 2 leaves (16 pods would exceed 4 core ports), so radix 32: pods of 16 leaves -> 2 pods,
  // 2 uplinks per leaf -> 2 spines per pod, 2 planes x 16 cores.
  auto t = build_topology(spec({{"generator", "rail-optimized"}, {"ecmp", "pair"},
                                {"nodes", "16"},
                                {"gpus_per_node", "4"},
                                {"leaf_down_ports", "2"},
                                {"tiers", "3"},
                                {"radix", "32"}}));
  auto d = summarize(t);
  EXPECT_EQ(d.switches_per_level, (std::vector<int>{0, 32, 4, 32}));
  // Cuts: 32 NICs x 50; 64 leaf uplinks / 2 x 50; 4 spines x 16 uplinks / 2 x 50: all 1.6 TB/s.
  EXPECT_DOUBLE_EQ(d.bisection.value(), 1.6e12);
  EXPECT_EQ(d.diameter, 8);
  EXPECT_EQ(check_all_routes(t, true), "");
}

TEST(FatTree, EveryRouteOfTheNamedNodesIsValid) {
  EXPECT_EQ(check_all_routes(build_topology(spec({{"generator", "dgx-h100"}})), true), "");
  EXPECT_EQ(check_all_routes(build_topology(spec({{"generator", "nvl72"}, {"nodes", "2"}})), true),
            "");
}

TEST(FatTree, DgxH100AndNvl72Defaults) {
  // One SuperPOD unit: 32 nodes x 8 GPUs; 8 rail leaves (32 nodes each), 32 uplinks -> 32 spines
  // when every cable is built (ecmp: pair); by default (spray) each leaf's 32 as one bundle.
  auto dgx = summarize(build_topology(spec({{"generator", "dgx-h100"}, {"ecmp", "pair"}})));
  EXPECT_EQ(dgx.gpus, 256);
  EXPECT_EQ(dgx.switches_per_level, (std::vector<int>{0, 8, 32}));
  ASSERT_FALSE(dgx.tiers.empty());
  EXPECT_DOUBLE_EQ(dgx.tiers[0].fastest.value(), 450e9);
  // One NVL72 rack: 72 GPUs in one NVLink domain at 900 GB/s, 2 leaves of 36 NICs, 36 spines.
  auto nvl = summarize(build_topology(spec({{"generator", "nvl72"}, {"ecmp", "pair"}})));
  EXPECT_EQ(nvl.gpus, 72);
  EXPECT_EQ(nvl.gpus_per_node, 72);
  EXPECT_EQ(nvl.switches_per_level, (std::vector<int>{0, 2, 36}));
  EXPECT_DOUBLE_EQ(nvl.tiers[0].fastest.value(), 900e9);
  // One node: the bisection is NVLink's, 36 GPUs x 900 GB/s.
  EXPECT_DOUBLE_EQ(nvl.bisection.value(), 36 * 900e9);
  auto sprayed = summarize(build_topology(spec({{"generator", "dgx-h100"}})));
  EXPECT_EQ(sprayed.switches_per_level, (std::vector<int>{0, 8, 1}));
  EXPECT_NE(sprayed.modelled_as.find("each leaf's 32 uplinks"), std::string::npos)
      << sprayed.modelled_as;
  EXPECT_DOUBLE_EQ(sprayed.bisection.value(), dgx.bisection.value());
}

// Counts flows per equal-cost choice (the first switch above the source leaf, or the core).
std::map<Vertex, int> spread(const Topology& t, int first_switch_level) {
  std::map<Vertex, int> uses;
  std::vector<Hop> hops;
  for (int s = 0; s < t.gpu_count(); ++s)
    for (int d = 0; d < t.gpu_count(); ++d) {
      hops.clear();
      if (s != d) t.route(s, d, hops);
      for (auto v : test::visited(t, s, hops))
        if (t.graph()[v].kind == VertexKind::net_switch && t.graph()[v].level == first_switch_level)
          ++uses[v];
    }
  return uses;
}

void expect_within_5_percent(const std::map<Vertex, int>& uses, size_t paths) {
  ASSERT_EQ(uses.size(), paths);
  double total = 0;
  for (auto [v, n] : uses) total += n;
  double mean = total / static_cast<double>(paths);
  for (auto [v, n] : uses) EXPECT_NEAR(n, mean, 0.05 * mean) << "switch " << v;
}

TEST(FatTree, EcmpSpreadsFlowsEvenlyOverSpines) {
  // 64 nodes x 8 GPUs on leaves of 8 NICs: 64 leaves, 8 spines; every cross-leaf pair
  // (512 x 504 = 258,048 flows, ~32k per spine) crosses exactly one spine.
  auto t =
      build_topology(spec({{"generator", "fat-tree"}, {"ecmp", "pair"}, {"nodes", "64"}, {"leaf_down_ports", "8"}}));
  expect_within_5_percent(spread(t, 2), 8);
}

TEST(FatTree, EcmpSpreadsFlowsEvenlyOverCores) {
  // radix 16: leaves of 8 down + 8 up, pods of 8 leaves, 8 planes x 8 cores = 64 equal paths
  // between pods. 128 nodes x 8 GPUs = 1024 GPUs, 128 leaves, 16 pods; 1024 x 960 cross-pod
  // flows, ~15k per core.
  auto t = build_topology(spec({{"generator", "fat-tree"}, {"ecmp", "pair"},
                                {"nodes", "128"},
                                {"leaf_down_ports", "8"},
                                {"tiers", "3"},
                                {"radix", "16"}}));
  expect_within_5_percent(spread(t, 3), 64);
}

TEST(FatTree, SamePairAlwaysTakesTheSamePath) {
  auto t =
      build_topology(spec({{"generator", "fat-tree"}, {"nodes", "16"}, {"leaf_down_ports", "8"}}));
  std::vector<Hop> a, b;
  t.route(3, 100, a);
  t.route(3, 100, b);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].channel(), b[i].channel());
}

TEST(FatTree, StructBuildKeepsTheOriginalTwoTierMeaning) {
  FatTreeParams p;
  p.nodes = 8; // 64 GPUs on 2 leaves of 32, 32 spines
  p.ecmp = "pair"; // every cable built
  auto t = build_fat_tree(p);
  EXPECT_EQ(t.gpu_count(), 64);
  EXPECT_EQ(t.gpus_per_node(), 8);
  EXPECT_EQ(t.node_of(17), 2);
  EXPECT_EQ(t.link_count(), 64 * 3 + 2 * 32);
  // Latency: 6 hops x 0.5 us across leaves; bandwidth: the 50 GB/s NIC.
  EXPECT_DOUBLE_EQ(t.path_latency(0, 40).value(), 3e-6);
  EXPECT_DOUBLE_EQ(t.path_bandwidth(0, 40).value(), 50e9);
}

TEST(FatTree, StructBuildRejectsNonsense) {
  FatTreeParams p;
  p.nodes = 0;
  EXPECT_EQ(error_of([&] { build_fat_tree(p); }),
            "FatTreeParams: nodes = '': must be greater than zero");
  p.nodes = 1;
  p.nic_bandwidth = BytesPerSecond(0);
  EXPECT_EQ(error_of([&] { build_fat_tree(p); }),
            "FatTreeParams: nic_bandwidth = '': must be greater than zero");
}

TEST(FatTree, BadParametersAreOneClearLine) {
  EXPECT_EQ(error_of([] {
              build_topology(spec({{"generator", "fat-tee"}, {"nodes", "2"}}));
            }),
            "s.yaml: system.topology.generator = 'fat-tee': unknown topology generator (did you "
            "mean 'fat-tree'?)");
  EXPECT_EQ(error_of([] {
              build_topology(spec({{"generator", "fat-tree"}, {"nodes", "2"}, {"nodez", "3"}}));
            }),
            "s.yaml: system.topology.nodez = '3': unknown key (did you mean 'nodes'?)");
  EXPECT_EQ(error_of([] {
              build_topology(
                  spec({{"generator", "fat-tree"}, {"nodes", "2"}, {"nic_bandwidth", "0Gbps"}}));
            }),
            "s.yaml: system.topology.nic_bandwidth = '0Gbps': must be greater than zero");
  EXPECT_EQ(error_of([] {
              build_topology(spec(
                  {{"generator", "fat-tree"}, {"nodes", "2"}, {"nvlink_bandwidth", "-1GBps"}}));
            }),
            "s.yaml: system.topology.nvlink_bandwidth = '-1GBps': must be greater than zero");
  EXPECT_EQ(error_of([] {
              build_topology(spec({{"generator", "fat-tree"}, {"nodes", "2"}, {"tiers", "4"}}));
            }),
            "s.yaml: system.topology.tiers = '4': must be 2 or 3");
  EXPECT_EQ(
      error_of([] {
        build_topology(spec({{"generator", "fat-tree"}, {"nodes", "2"}, {"tiers", "3"}}));
      }),
      "s.yaml: system.topology.radix = '': a 3-tier Clos needs the switch radix (at least 2)");
  // radix 4 with 1-port leaves: pods of 2 leaves; 64 GPUs -> 64 leaves -> 32 pods > 4 core ports.
  EXPECT_EQ(error_of([] {
              build_topology(spec({{"generator", "fat-tree"},
                                   {"nodes", "8"},
                                   {"leaf_down_ports", "1"},
                                   {"tiers", "3"},
                                   {"radix", "4"}}));
            }),
            "s.yaml: system.topology.nodes = '8': needs 32 pods, more than a radix-4 core connects "
            "(raise radix)");
  EXPECT_EQ(
      error_of([] {
        build_topology(spec({{"generator", "fat-tree"}, {"nodes", "2000000000"}}));
      }),
      "s.yaml: system.topology.nodes = '2000000000': gives more GPUs than the 10000000 supported");
  // 800k GPUs on 25,000 leaves of 32 NICs with 32 / 0.001 = 32,000 uplinks each:
  // 3 x 800k + 25,000 x 32,000 = 8.024e8 links.
  EXPECT_EQ(error_of([] {
              build_topology(spec({{"generator", "fat-tree"},
                                   {"nodes", "100000"},
                                   {"oversubscription", "0.001"},
                                   {"ecmp", "pair"}}));
            }),
            "s.yaml: system.topology.oversubscription = '0.001': gives 8.02e+08 links, more than "
            "the 1e+08 supported");
  EXPECT_EQ(error_of([] {
              build_topology(
                  spec({{"generator", "fat-tree"}, {"nodes", "2"}, {"network_latency", "-1us"}}));
            }),
            "s.yaml: system.topology.network_latency = '-1us': must not be negative");
}

} // namespace
} // namespace trainsim::topo
