// Rail-equivariant ECMP (`ecmp: rail`, topologies/fat_tree.cpp), destination routing
// (`ecmp: destination`) and packet spraying (`ecmp: spray`): turning every node's GPUs one
// place turns every route, the equal-cost paths still spread evenly, rail_link() names a
// rail-0 link's orbit, destination routing gives a ring's shifts links of their own, spraying
// builds a leaf's planes as one link; the key's rejections.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "route_check.hpp"
#include "topologies/spec.hpp"

namespace trainsim::topo {
namespace {

using test::error_of;
using test::spec;

// 64 nodes of 4 GPUs, 8 nodes per rail leaf: 8 groups x 4 rails = 32 leaves of 8 down and
// 8 up ports; radix 16: pods of 8 leaves (2 groups) -> 4 pods; 8 planes (2 per rail) x 8 cores.
Topology rail_clos(const char* ecmp = "rail") {
  return build_topology(spec({{"generator", "rail-optimized"},
                              {"nodes", "64"},
                              {"gpus_per_node", "4"},
                              {"leaf_down_ports", "8"},
                              {"tiers", "3"},
                              {"radix", "16"},
                              {"ecmp", ecmp}}));
}

constexpr int kGpus = 4, kUp = 8, kCoresPerPlane = 8;

// The turn on vertices: local GPU k to k + 1 (GPUs, NICs: index = rank), rail leaf k to k + 1,
// spine and core planes by up / g = 2; NVSwitches stay.
std::pair<int, int> turned(const VertexProps& v) {
  auto turn_rank = [](int r) { return r - r % kGpus + (r % kGpus + 1) % kGpus; };
  int per_rail = kUp / kGpus;
  if (v.kind == VertexKind::gpu || v.kind == VertexKind::nic) return {v.level, turn_rank(v.index)};
  if (v.kind != VertexKind::net_switch) return {v.level, v.index};
  if (v.level == 1) return {1, turn_rank(v.index)}; // leaf = group x g + rail
  if (v.level == 2) {                               // spine = pod x up + plane
    int plane = v.index % kUp;
    return {2, v.index - plane + (plane + per_rail) % kUp};
  }
  int plane = v.index / kCoresPerPlane; // core = plane x cores per plane + c
  return {3, ((plane + per_rail) % kUp) * kCoresPerPlane + v.index % kCoresPerPlane};
}

std::vector<std::pair<int, int>> path(const Topology& t, int src, int dst, bool turn) {
  std::vector<Hop> hops;
  t.route(src, dst, hops);
  std::vector<std::pair<int, int>> out;
  for (Vertex v : test::visited(t, src, hops)) {
    const VertexProps& p = t.graph()[v];
    out.push_back(turn ? turned(p) : std::pair{p.level, p.index});
  }
  return out;
}

TEST(RailEcmp, TurningTheGpusTurnsEveryRoute) {
  for (const char* ecmp : {"rail", "destination"}) {
    Topology t = rail_clos(ecmp);
    EXPECT_TRUE(t.router().rail_symmetric());
    auto turn_rank = [](int r) { return r - r % kGpus + (r % kGpus + 1) % kGpus; };
    for (int a = 0; a < t.gpu_count(); a += 3)
      for (int b = 1; b < t.gpu_count(); b += 5)
        if (a != b) {
          ASSERT_EQ(path(t, turn_rank(a), turn_rank(b), false), path(t, a, b, true))
              << ecmp << " " << a << "->" << b;
        }
    EXPECT_EQ(test::check_all_routes(t, true), "") << ecmp;
  }
  EXPECT_FALSE(rail_clos("pair").router().rail_symmetric());
}

// The most flows any one switch-to-switch link carries when every GPU sends to the GPU on
// its rail `shift` nodes on (modulo the 64 nodes): one step of 4 rail-aligned rings.
int busiest_link(const Topology& t, int shift) {
  std::map<int, int> flows;
  std::vector<Hop> hops;
  for (int a = 0; a < t.gpu_count(); ++a) {
    hops.clear();
    t.route(a, (a + shift * kGpus) % t.gpu_count(), hops);
    for (const Hop& h : hops)
      if (t.link(h.link).tier == Tier::spine || t.link(h.link).tier == Tier::core)
        ++flows[h.link * 2 + (h.forward ? 1 : 0)];
  }
  int most = 0;
  for (auto [link, n] : flows) most = std::max(most, n);
  return most;
}

TEST(RailEcmp, DestinationRoutingGivesEveryShiftLinksOfItsOwn) {
  // A rail leaf holds 8 consecutive nodes, which destination routing sends through planes
  // n + 2 k mod 8 (rail k): distinct, so the 8 flows a shift takes out of (or into) a leaf use
  // its 8 uplinks one each. A spine passes a pod's flows to 2 nodes of each of the 4 rails'
  // residues (a pod is 16 nodes), which reach the plane's cores (n / 8) x 4 + (n mod 8) / 2:
  // 8 distinct cores of 8. So no link carries two flows in one direction, for any shift; the
  // hash of `rail` puts two or more on some link for some of them.
  Topology destination = rail_clos("destination"), rail = rail_clos("rail");
  int hashed = 0;
  for (int shift : {1, 3, 8, 17, 32, 63}) {
    EXPECT_EQ(busiest_link(destination, shift), 1) << "shift " << shift;
    hashed = std::max(hashed, busiest_link(rail, shift));
  }
  EXPECT_GE(hashed, 2);
}

TEST(RailEcmp, FlowsStillSpreadOverEveryCore) {
  // Rail-aligned pairs: each GPU's 48 peers on its rail in other pods cross one of the 8 planes
  // x 8 cores = 64 cores; every core within 15% of the mean (256 x 48 = 12,288 flows, ~190 per
  // core: fewer than the pair-hash test's).
  Topology t = rail_clos();
  std::map<int, int> uses;
  for (int a = 0; a < t.gpu_count(); ++a)
    for (int b = a % kGpus; b < t.gpu_count(); b += kGpus)
      for (auto [level, index] : a == b ? decltype(path(t, a, b, false)){} : path(t, a, b, false))
        if (level == 3) ++uses[index];
  ASSERT_EQ(uses.size(), 64u);
  double mean = 0;
  for (auto [core, n] : uses) mean += n / 64.0;
  for (auto [core, n] : uses) EXPECT_NEAR(n, mean, 0.15 * mean) << "core " << core;
}

TEST(RailEcmp, ARail0SpineCoreLinkStandsForItsPlaneModuloUpOverG) {
  // Rail 0 of node 0 to rail 0 of node 63 (pod 0 to pod 3): its spine-core links are named by
  // their plane modulo 2; every other link of the route is its own.
  Topology t = rail_clos();
  std::vector<Hop> hops;
  t.route(0, 63 * kGpus, hops);
  ASSERT_EQ(hops.size(), 8u); // gpu nic leaf spine core spine leaf nic gpu
  for (const Hop& h : hops) {
    int rep = t.router().rail_link(h.link);
    if (t.link(h.link).tier != Tier::core) {
      EXPECT_EQ(rep, h.link) << t.hop_name(h);
      continue;
    }
    auto [a, b] = t.link_ends(h.link);
    auto [ra, rb] = t.link_ends(rep);
    const VertexProps &spine = t.graph()[a], &rspine = t.graph()[ra], &rcore = t.graph()[rb];
    EXPECT_EQ(rspine.index, spine.index - spine.index % kUp + spine.index % kUp % 2);
    EXPECT_EQ(rcore.index / kCoresPerPlane, spine.index % kUp % 2);
    EXPECT_EQ(rcore.index % kCoresPerPlane, t.graph()[b].index % kCoresPerPlane);
  }
}

void links_stand_with_their_images(const Topology& t) {
  const Router& r = t.router();
  int self = 0;
  for (int l = 0; l < t.link_count(); ++l) {
    ASSERT_EQ(r.rail_link(r.rail_link(l)), r.rail_link(l)) << l;
    self += r.rail_link(l) == l ? 1 : 0;
  }
  EXPECT_EQ(self * kGpus, t.link_count());
  std::vector<Hop> hops, back;
  for (int a = 1; a < t.gpu_count(); a += 7)
    for (int b = 2; b < t.gpu_count(); b += 11) {
      if (a / kGpus == b / kGpus) continue;
      int k = a % kGpus;
      hops.clear(), back.clear();
      t.route(a, b, hops);
      t.route(a - k, b - b % kGpus + (b % kGpus - k + kGpus) % kGpus, back);
      ASSERT_EQ(hops.size(), back.size());
      for (size_t i = 0; i < hops.size(); ++i) {
        ASSERT_EQ(r.rail_link(hops[i].link), r.rail_link(back[i].link)) << a << "->" << b;
        ASSERT_EQ(hops[i].forward, back[i].forward);
      }
    }
}

TEST(RailEcmp, EveryLinkOfARouteStandsWithItsImageOnRail0) {
  // rail_link() names orbits: the links of any pair's route and of the pair turned back to
  // rail 0 name the same links, hop by hop; one link in 4 (the GPUs per node) names itself.
  for (const char* ecmp : {"rail", "destination"}) {
    SCOPED_TRACE(ecmp);
    links_stand_with_their_images(rail_clos(ecmp));
  }
}

TEST(RailEcmp, ARailsOwnLinksAreItsAloneAndTheSpineCoreLinksEveryRails) {
  // rail_of_link(): every link of a route between two GPUs of one rail is that rail's, but the
  // spine-core links, which a route of any rail may cross; a link's orbit (rail_link) holds one
  // link of each rail, or only shared ones.
  Topology t = rail_clos();
  const Router& r = t.router();
  for (int l = 0; l < t.link_count(); ++l) {
    int rail = r.rail_of_link(l);
    ASSERT_EQ(rail < 0, t.link(l).tier == Tier::core) << l;
    ASSERT_EQ(r.rail_of_link(r.rail_link(l)), rail < 0 ? -1 : 0) << l;
  }
  std::vector<Hop> hops;
  for (int a = 1; a < t.gpu_count(); a += 7)
    for (int b = a % kGpus; b < t.gpu_count(); b += 5 * kGpus) {
      if (a / kGpus == b / kGpus) continue;
      hops.clear();
      t.route(a, b, hops);
      for (const Hop& h : hops)
        ASSERT_EQ(r.rail_of_link(h.link), t.link(h.link).tier == Tier::core ? -1 : a % kGpus)
            << a << "->" << b << " " << t.hop_name(h);
    }
}

// rail_clos() on 2 tiers: the same 32 leaves of 8 uplinks, one pod.
Topology rail_clos_two_tiers(const char* ecmp) {
  return build_topology(spec({{"generator", "rail-optimized"},
                              {"nodes", "64"},
                              {"gpus_per_node", "4"},
                              {"leaf_down_ports", "8"},
                              {"ecmp", ecmp}}));
}

TEST(Spray, ALeafsPlanesAreOneLinkOfTheirSummedBandwidth) {
  // 32 leaves x 8 planes of 50 GB/s become 32 uplinks of 8 x 50 = 400 GB/s to one spine; the
  // links are 3 per GPU (256 GPUs) + 32. The capacities are the unsprayed tree's: bisection
  // min(128 NICs x 50 GB/s, 32 x 8 / 2 uplinks x 50 GB/s) = 6.4 TB/s, oversubscription 1.
  Topology t = rail_clos_two_tiers("spray");
  ASSERT_EQ(t.link_count(), 3 * 256 + 32);
  for (int l = 3 * 256; l < t.link_count(); ++l) {
    EXPECT_EQ(t.link(l).tier, Tier::spine);
    EXPECT_DOUBLE_EQ(t.link(l).bandwidth.value(), 400e9);
  }
  EXPECT_DOUBLE_EQ(t.facts()->bisection.value(), 6.4e12);
  EXPECT_DOUBLE_EQ(t.facts()->bisection.value(),
                   rail_clos_two_tiers("rail").facts()->bisection.value());
  EXPECT_DOUBLE_EQ(t.facts()->oversubscription, 1.0);
  EXPECT_EQ(test::check_all_routes(t, true, 5), "");
}

TEST(Spray, RailZeroStandsForEveryRailInsideOnePodOnly) {
  // Two tiers: a rail leaf's one uplink is turned into the next rail's, as rail ECMP's planes
  // are. Across pods a pod's one spine-core link carries every rail (the turn maps it onto
  // itself), and without rails a leaf's NICs are every rail's: every GPU runs its own flows.
  Topology two = rail_clos_two_tiers("spray");
  EXPECT_TRUE(two.router().rail_symmetric());
  links_stand_with_their_images(two);
  EXPECT_FALSE(rail_clos("spray").router().rail_symmetric());
  EXPECT_FALSE(build_topology(spec({{"generator", "fat-tree"}, {"nodes", "4"}, {"ecmp", "spray"}}))
                   .router()
                   .rail_symmetric());
}

TEST(Spray, ThreeTiersSumAPodsCoreLinks) {
  // rail_clos("spray"): 4 pods of 8 leaves; a pod's 8 planes x 8 cores of 50 GB/s are one
  // link of 3.2 TB/s to one core, a leaf's 8 uplinks one of 400 GB/s to its pod's spine.
  Topology t = rail_clos("spray");
  ASSERT_EQ(t.link_count(), 3 * 256 + 32 + 4);
  EXPECT_DOUBLE_EQ(t.link(3 * 256).bandwidth.value(), 400e9);
  for (int l = 3 * 256 + 32; l < t.link_count(); ++l) {
    EXPECT_EQ(t.link(l).tier, Tier::core);
    EXPECT_DOUBLE_EQ(t.link(l).bandwidth.value(), 3.2e12);
  }
  EXPECT_EQ(test::check_all_routes(t, true, 5), "");
}

TEST(RailEcmp, RejectionsNameTheKey) {
  EXPECT_EQ(error_of([] {
              build_topology(spec({{"generator", "fat-tree"}, {"nodes", "2"}, {"ecmp", "rail"}}));
            }),
            "s.yaml: system.topology.ecmp = 'rail': needs rails: generator rail-optimized or "
            "dgx-h100");
  EXPECT_EQ(error_of([] {
              build_topology(spec({{"generator", "fat-tree"}, {"nodes", "2"}, {"ecmp", "hash"}}));
            }),
            "s.yaml: system.topology.ecmp = 'hash': must be pair, rail, destination or spray");
  // 4 nodes per rail leaf, oversubscribed 2:1: 2 uplinks, fewer than the 8 rails.
  EXPECT_EQ(error_of([] {
              build_topology(spec({{"generator", "rail-optimized"},
                                   {"nodes", "8"},
                                   {"leaf_down_ports", "4"},
                                   {"oversubscription", "2"},
                                   {"ecmp", "rail"}}));
            }),
            "s.yaml: system.topology.ecmp = 'rail': needs the 2 uplinks per leaf to be a multiple "
            "of gpus_per_node (8)");
  // radix 12: pods of 6 leaves, which split a group's 4 rail leaves.
  EXPECT_EQ(error_of([] {
              build_topology(spec({{"generator", "rail-optimized"},
                                   {"nodes", "8"},
                                   {"gpus_per_node", "4"},
                                   {"leaf_down_ports", "4"},
                                   {"tiers", "3"},
                                   {"radix", "12"},
                                   {"ecmp", "rail"}}));
            }),
            "s.yaml: system.topology.ecmp = 'rail': needs the radix / 2 = 6 leaves per pod to be "
            "a multiple of gpus_per_node (4)");
}

} // namespace
} // namespace trainsim::topo
