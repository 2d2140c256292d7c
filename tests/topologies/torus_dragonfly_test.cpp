// Project headers first: <gtest/gtest.h> pulls in <signal.h>, whose `si_value` macro breaks
// models/units.hpp when it is included afterwards.
#include "route_check.hpp"
#include "topologies/describe.hpp"
#include "topologies/dragonfly.hpp"
#include "topologies/spec.hpp"
#include "topologies/torus.hpp"

#include <map>

#include <gtest/gtest.h>

namespace trainsim::topo {
namespace {

using test::check_all_routes;
using test::error_of;
using test::params;
using test::spec;

TEST(Torus, FourByFourCountsBisectionAndDiameter) {
  auto t = build_topology(spec({{"generator", "torus"}, {"dims", "4x4"}}));
  auto d = summarize(t);
  EXPECT_EQ(d.gpus, 16);
  EXPECT_EQ(d.links, 32);   // 16 GPUs x 2 dimensions, one + link each
  EXPECT_EQ(d.diameter, 4); // 4 / 2 + 4 / 2
  // Halving along a 4-ring cuts each of the 4 rings twice: 8 links x 50 GB/s.
  EXPECT_DOUBLE_EQ(d.bisection.value(), 400e9);
  EXPECT_DOUBLE_EQ(rank_halves_cut(t).value(), 400e9); // ranks 0-7 are rows 0-1
  EXPECT_EQ(check_all_routes(t, false), "");
}

TEST(Torus, RingsOfTwoAndThreeHaveNoDuplicateLinks) {
  // 2x3x4 = 24 GPUs: rings of 2 have 1 link (12 rings), of 3 have 3 (8 rings), of 4 have 4 (6
  // rings).
  auto t = build_topology(spec({{"generator", "torus"}, {"dims", "2x3x4"}}));
  EXPECT_EQ(t.link_count(), 12 + 24 + 24);
  EXPECT_EQ(summarize(t).diameter, 1 + 1 + 2);
  EXPECT_EQ(check_all_routes(t, false), "");
}

TEST(Torus, DimensionOrderTakesTheShorterWayRound) {
  auto t = build_topology(spec({{"generator", "torus"}, {"dims", "2x3x4"}}));
  // rank = x0 + 2 * (x1 + 3 * x2); (1, 2, 3) is rank 23. x0: +1; x1: 0 -> 2 is one step back;
  // x2: 0 -> 3 is one step back.
  std::vector<Hop> hops;
  t.route(0, 23, hops);
  ASSERT_EQ(hops.size(), 3u);
  EXPECT_EQ(t.hop_name(hops[0]), "gpu0->gpu1");
  EXPECT_EQ(t.hop_name(hops[1]), "gpu1->gpu5");  // (1, 2, 0)
  EXPECT_EQ(t.hop_name(hops[2]), "gpu5->gpu23"); // (1, 2, 3)
}

TEST(Torus, HalfWayRoundGoesBothWays) {
  // On a ring of 8, 0 -> 4 is 4 hops either way; over many pairs both directions are used.
  auto t = build_topology(spec({{"generator", "torus"}, {"dims", "8x8"}}));
  int plus = 0, minus = 0;
  std::vector<Hop> hops;
  for (int s = 0; s < 64; ++s) {
    int d = (s % 8 + 4) % 8 + s / 8 * 8; // same row, 4 columns on
    hops.clear();
    t.route(s, d, hops);
    ASSERT_EQ(hops.size(), 4u);
    auto [a, b] = t.link_ends(hops[0].link);
    int next = static_cast<int>(hops[0].forward ? b : a);
    (next == s / 8 * 8 + (s % 8 + 1) % 8 ? plus : minus)++;
  }
  EXPECT_GT(plus, 16);
  EXPECT_GT(minus, 16);
}

TEST(Torus, BadDims) {
  EXPECT_EQ(error_of([] {
              build_topology(spec({{"generator", "torus"}, {"dims", "4x"}}));
            }),
            "s.yaml: system.topology.dims = '4x': must be sizes >= 1 joined by 'x', e.g. 4x4x4");
  EXPECT_EQ(error_of([] {
              build_topology(spec({{"generator", "torus"}, {"dims", "4x4x4x4"}}));
            }),
            "s.yaml: system.topology.dims = '4x4x4x4': must have 2 or 3 dimensions");
  EXPECT_EQ(error_of([] {
              build_topology(
                  spec({{"generator", "torus"}, {"dims", "4x4"}, {"link_bandwidth", "0GBps"}}));
            }),
            "s.yaml: system.topology.link_bandwidth = '0GBps': must be greater than zero");
}

Topology small_dragonfly() {
  // 5 groups of 2 routers with 2 global links each: 4 ports per group = one link per pair of
  // groups. One 2-GPU node per router: 20 GPUs.
  return build_topology(spec({{"generator", "dragonfly"},
                              {"groups", "5"},
                              {"routers_per_group", "2"},
                              {"global_links", "2"},
                              {"gpus_per_node", "2"}}));
}

TEST(Dragonfly, CountsBisectionAndDiameter) {
  auto d = summarize(small_dragonfly());
  EXPECT_EQ(d.gpus, 20);
  EXPECT_EQ(d.switches_per_level, (std::vector<int>{10})); // routers are level 0: no tree tier
  // 20 nvlink + 20 host + 20 NIC links; 1 local link per group x 5; C(5, 2) = 10 global links.
  EXPECT_EQ(d.links, 20 + 20 + 20 + 5 + 10);
  // min(half the NICs 10 x 50 GB/s, groups 2 | 3: 2 x 3 global links x 50 GB/s = 300 GB/s).
  EXPECT_DOUBLE_EQ(d.bisection.value(), 300e9);
  EXPECT_EQ(d.diameter, 7); // gpu nic router (local) router (global) router (local) router nic gpu
}

TEST(Dragonfly, MinimalRoutesUseAtMostOneGlobalAndTwoLocalLinks) {
  auto t = small_dragonfly();
  EXPECT_EQ(check_all_routes(t, false), "");
  std::vector<Hop> hops;
  for (int s = 0; s < t.gpu_count(); ++s)
    for (int d = 0; d < t.gpu_count(); ++d) {
      if (s == d) continue;
      hops.clear();
      t.route(s, d, hops);
      int global = 0, local = 0;
      for (Hop h : hops) {
        global += t.link(h.link).tier == Tier::global;
        local += t.link(h.link).tier == Tier::spine;
      }
      EXPECT_LE(global, 1);
      EXPECT_LE(local, 2);
      EXPECT_LE(static_cast<int>(hops.size()), 7);
    }
}

TEST(Dragonfly, EcmpSpreadsFlowsOverParallelGlobalLinks) {
  // 3 groups of 4 routers x 4 global links: 16 ports per group over 2 other groups = 8 parallel
  // links per pair. 2 nodes of 2 GPUs per router: 48 GPUs; the 48 x 32 inter-group flows
  // (~192 per link) fall on the 24 global links.
  auto t = build_topology(spec({{"generator", "dragonfly"},
                                {"groups", "3"},
                                {"routers_per_group", "4"},
                                {"global_links", "4"},
                                {"nodes_per_router", "2"},
                                {"gpus_per_node", "2"}}));
  EXPECT_EQ(t.gpu_count(), 48);
  EXPECT_EQ(check_all_routes(t, false), "");
  std::map<int, int> uses;
  std::vector<Hop> hops;
  for (int s = 0; s < t.gpu_count(); ++s)
    for (int d = 0; d < t.gpu_count(); ++d) {
      hops.clear();
      if (s != d) t.route(s, d, hops);
      for (Hop h : hops)
        if (t.link(h.link).tier == Tier::global) ++uses[h.link];
    }
  ASSERT_EQ(uses.size(), 24u); // 3 pairs of groups x 8
  // Every link is used; with 64 flows per link a hash gives a standard deviation of ~8, and
  // every link stays within 3 of those (24) of the mean.
  for (auto [link, n] : uses) EXPECT_NEAR(n, 48 * 32 / 24, 24) << "link " << link;
}

TEST(Dragonfly, GroupsMustShareGlobalLinksEvenly) {
  EXPECT_EQ(error_of([] {
              build_topology(spec({{"generator", "dragonfly"},
                                   {"groups", "4"},
                                   {"routers_per_group", "2"},
                                   {"global_links", "2"}}));
            }),
            "s.yaml: system.topology.groups = '4': groups - 1 must divide routers_per_group x "
            "global_links = 4 "
            "(every pair of groups gets the same number of global links)");
}

} // namespace
} // namespace trainsim::topo
