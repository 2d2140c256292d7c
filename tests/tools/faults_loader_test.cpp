// A scenario's `faults:` section (models/faults.hpp): read strictly, written back, and each
// bad entry refused in one line naming the entry, key and value.
#include <gtest/gtest.h>

#include <cmath>

#include "models/faults.hpp"
#include "tests/tools/loader_fixtures.hpp"
#include "tools/io/provenance.hpp"
#include "tools/io/scenario_writer.hpp"

namespace trainsim {
namespace {

using testing::error_of;

// 32 GPUs on 4 nodes of 8.
const std::string kJob = R"(model:
  layers: 2
  d_model: 1024
  d_ff: 4096
  heads: 8
  seq_len: 1024
system:
  gpu: h100-sxm
  topology:
    generator: fat-tree
    nodes: 4
    gpus_per_node: 8
execution:
  dp: 32
  global_batch: 32
)";

std::string with_faults(const std::string& entries) {
  return kJob + "faults:\n  slow_gpus:\n" + entries;
}

TEST(FaultsLoader, ReadsEachWayOfNamingSlowGpus) {
  Scenario s = parse_scenario(with_faults("    - rank: 3\n      factor: 0.5\n"
                                          "    - node: 2\n      factor: 0.8\n"
                                          "    - fraction: 0.25\n      seed: 4\n      factor: 0.9\n"),
                              "s.yaml")
                     .scenario;
  ASSERT_EQ(s.faults.slow_gpus.size(), 3u);
  EXPECT_EQ(describe(s.faults.slow_gpus[0]), "rank 3 at 0.5 of the kernel rate");
  EXPECT_EQ(describe(s.faults.slow_gpus[1]), "node 2 at 0.8 of the kernel rate");
  EXPECT_EQ(describe(s.faults.slow_gpus[2]), "0.25 of the ranks (seed 4) at 0.9 of the kernel rate");
  // The writer's text reads back as the same scenario, faults included.
  Scenario back = parse_scenario(scenario_yaml(s, ""), "s.yaml").scenario;
  EXPECT_EQ(provenance_json(back).at("scenario"), provenance_json(s).at("scenario"));
  EXPECT_EQ(provenance_json(s).at("scenario").at("faults").at("slow_gpus").size(), 3u);
}

TEST(FaultsLoader, SlowdownsFollowTheEntries) {
  Scenario s = parse_scenario(with_faults("    - rank: 3\n      factor: 0.5\n"
                                          "    - node: 0\n      factor: 0.8\n"
                                          "    - fraction: 0.25\n      factor: 0.9\n"),
                              "s.yaml")
                   .scenario;
  std::vector<double> slow = fault_slowdowns(s);
  ASSERT_EQ(slow.size(), 32u);
  // Node 0 is ranks 0 to 7, at 1 / 0.8 = 1.25; rank 3 also at 1 / 0.5: 2.5. The fraction takes
  // round(0.25 x 32) = 8 ranks more at 1 / 0.9, wherever the seed puts them.
  int taken = 0;
  for (int r = 0; r < 32; ++r) {
    double named = r == 3 ? 2.5 : r < 8 ? 1.25 : 1.0, got = slow[static_cast<size_t>(r)];
    bool in_fraction = std::abs(got - named / 0.9) < 1e-12;
    EXPECT_TRUE(in_fraction || std::abs(got - named) < 1e-12) << r;
    taken += in_fraction ? 1 : 0;
  }
  EXPECT_EQ(taken, 8);
}

TEST(FaultsLoader, RefusesEachBadEntryInOneLine) {
  EXPECT_EQ(error_of(with_faults("    - rank: 3\n      factor: 0\n")),
            "s.yaml: faults.slow_gpus[0].factor = '0': must be above 0 and at most 1: the share "
            "of its kernel rate a slow GPU keeps");
  EXPECT_EQ(error_of(with_faults("    - rank: 3\n      factor: 1.2\n")),
            "s.yaml: faults.slow_gpus[0].factor = '1.2': must be above 0 and at most 1: the share "
            "of its kernel rate a slow GPU keeps");
  EXPECT_EQ(error_of(with_faults("    - rank: 32\n      factor: 0.5\n")),
            "s.yaml: faults.slow_gpus[0].rank = '32': is not a rank of this job (0 to 31)");
  EXPECT_EQ(error_of(with_faults("    - node: 4\n      factor: 0.5\n")),
            "s.yaml: faults.slow_gpus[0].node = '4': is not a node of this job (0 to 3, 8 GPUs "
            "each)");
  EXPECT_EQ(error_of(with_faults("    - fraction: 0\n      factor: 0.5\n")),
            "s.yaml: faults.slow_gpus[0].fraction = '0': must be above 0 and at most 1");
  EXPECT_EQ(error_of(with_faults("    - factor: 0.5\n")),
            "s.yaml: faults.slow_gpus[0]: names no GPUs: give one of rank, node or fraction");
  EXPECT_EQ(error_of(with_faults("    - rank: 1\n      node: 1\n      factor: 0.5\n")),
            "s.yaml: faults.slow_gpus[0]: names GPUs more than one way: give one of rank, node "
            "or fraction");
  EXPECT_EQ(error_of(with_faults("    - rank: 1\n")),
            "s.yaml: faults.slow_gpus[0].factor = '': is missing");
  EXPECT_EQ(error_of(kJob + "faults:\n  slow_gpus: 3\n"),
            "s.yaml: faults.slow_gpus = 'a value': must be a list of entries "
            "(docs/scenario-format.md, faults)");
}

// The same job on leaves of 16 ports: two leaves under spines, so every tier has links.
std::string with_links(const std::string& entries) {
  return testing::with(kJob, "    gpus_per_node: 8\n", "    gpus_per_node: 8\n    leaf_down_ports: 16\n") +
         "faults:\n  degraded_links:\n" + entries;
}

TEST(FaultsLoader, ReadsDegradedLinksAndWritesThemBack) {
  Scenario s = parse_scenario(with_links("    - nic: 5\n      factor: 0.5\n"
                                         "    - link: leaf0-spine0\n      extra_latency: 2us\n"
                                         "    - tier: spine\n      factor: 0.75\n"),
                              "s.yaml")
                   .scenario;
  ASSERT_EQ(s.faults.degraded_links.size(), 3u);
  EXPECT_EQ(describe(s.faults.degraded_links[0]), "rank 5's NIC link at 0.5 of its bandwidth");
  EXPECT_EQ(describe(s.faults.degraded_links[1]),
            "link leaf0-spine0 " + format(Seconds(2e-6)) + " more latency");
  EXPECT_EQ(describe(s.faults.degraded_links[2]), "every spine link at 0.75 of its bandwidth");
  Scenario back = parse_scenario(scenario_yaml(s, ""), "s.yaml").scenario;
  EXPECT_EQ(provenance_json(back).at("scenario"), provenance_json(s).at("scenario"));
}

TEST(FaultsLoader, RefusesEachBadLinkInOneLine) {
  EXPECT_EQ(error_of(with_links("    - nic: 5\n      factor: 0\n")),
            "s.yaml: faults.degraded_links[0].factor = '0': must be above 0 and at most 1: the "
            "share of its bandwidth a link keeps (a failed link is removed, not degraded)");
  EXPECT_EQ(error_of(with_links("    - nic: 5\n      factor: 1.5\n")),
            "s.yaml: faults.degraded_links[0].factor = '1.5': must be above 0 and at most 1: the "
            "share of its bandwidth a link keeps (a failed link is removed, not degraded)");
  EXPECT_EQ(error_of(with_links("    - nic: 40\n      factor: 0.5\n")),
            "s.yaml: faults.degraded_links[0].nic = '40': is not a rank of this job (0 to 31)");
  EXPECT_EQ(error_of(with_links("    - factor: 0.5\n")),
            "s.yaml: faults.degraded_links[0]: names no link: give one of nic, link or tier");
  EXPECT_EQ(error_of(with_links("    - nic: 1\n      tier: leaf\n      factor: 0.5\n")),
            "s.yaml: faults.degraded_links[0]: names links more than one way: give one of nic, "
            "link or tier");
  EXPECT_EQ(error_of(with_links("    - nic: 1\n")),
            "s.yaml: faults.degraded_links[0]: degrades nothing: give factor, extra_latency or "
            "both");
}

TEST(FaultsLoader, RefusesALinkTheFabricDoesNotHave) {
  // Names are checked on the built fabric.
  EXPECT_EQ(error_of(with_links("    - tier: spin\n      factor: 0.5\n")),
            "s.yaml: faults.degraded_links[0].tier = 'spin': is not a tier of this fabric "
            "(did you mean 'spine'?)");
  EXPECT_EQ(error_of(kJob + "faults:\n  degraded_links:\n    - tier: spine\n      factor: 0.5\n"),
            "s.yaml: faults.degraded_links[0].tier = 'spine': is not a tier of this fabric");
  std::string e = error_of(with_links("    - link: nic3-leaf9\n      factor: 0.5\n"));
  EXPECT_EQ(e.rfind("s.yaml: faults.degraded_links[0].link = 'nic3-leaf9': is not a link of this "
                    "fabric (its ends' names, e.g. ",
                    0),
            0u)
      << e;
}

// The job on leaves of 16 ports with every cable built (ecmp: pair): 2 leaves, 16 spines.
std::string with_failed(const std::string& entries, const std::string& ecmp = "pair") {
  return testing::with(kJob, "    gpus_per_node: 8\n",
                       "    gpus_per_node: 8\n    leaf_down_ports: 16\n    ecmp: " + ecmp + "\n") +
         "faults:\n  failed:\n" + entries;
}

TEST(FaultsLoader, ReadsFailedPartsAndWritesThemBack) {
  Scenario s =
      parse_scenario(with_failed("    - switch: spine3\n    - link: leaf1-spine0\n"), "s.yaml")
          .scenario;
  ASSERT_EQ(s.faults.failed.size(), 2u);
  EXPECT_EQ(describe(s.faults.failed[0]), "switch spine3 failed");
  EXPECT_EQ(describe(s.faults.failed[1]), "link leaf1-spine0 failed");
  Scenario back = parse_scenario(scenario_yaml(s, ""), "s.yaml").scenario;
  EXPECT_EQ(provenance_json(back).at("scenario"), provenance_json(s).at("scenario"));
  EXPECT_EQ(provenance_json(s).at("scenario").at("faults").at("failed").size(), 2u);
}

TEST(FaultsLoader, RefusesEachBadFailureInOneLine) {
  EXPECT_EQ(error_of(with_failed("    - switch: spine3\n      link: leaf0-spine3\n")),
            "s.yaml: faults.failed[0]: names a link and a switch: give one per entry");
  EXPECT_EQ(error_of(with_failed("    - {}\n")),
            "s.yaml: faults.failed[0]: names nothing: give link or switch");
  EXPECT_EQ(error_of(with_failed("    - switch: spine99\n")),
            "s.yaml: faults.failed[0].switch = 'spine99': is not a network switch of this fabric "
            "(e.g. leaf0) (did you mean 'spine9'?)");
  EXPECT_EQ(error_of(with_failed("    - link: leaf0-spine16\n")).rfind(
                "s.yaml: faults.failed[0].link = 'leaf0-spine16': is not a link of this fabric", 0),
            0u);
}

TEST(FaultsLoader, RefusesAFailureThatCutsTheFabric) {
  // Leaf 1 has nodes 2 and 3; without it their GPUs reach nothing beyond their NVSwitch.
  EXPECT_EQ(error_of(with_failed("    - switch: spine0\n    - switch: leaf1\n")),
            "s.yaml: faults.failed[1].switch = 'leaf1': cuts the fabric: no working path joins "
            "gpu16 and gpu0 any more");
}

// The merged link between the vertices named a and b on the built fabric: its bandwidth.
double merged_bandwidth(const LoadedScenario& l, const std::string& a, const std::string& b) {
  for (int id = 0; id < l.topology.link_count(); ++id) {
    auto [x, y] = l.topology.link_ends(id);
    if (l.topology.vertex_name(x) == a && l.topology.vertex_name(y) == b)
      return l.topology.link_failed(id) ? 0 : l.topology.link(id).bandwidth.value();
  }
  ADD_FAILURE() << "no link " << a << "-" << b;
  return -1;
}

TEST(FaultsLoader, ASprayedSpineTakesItsShareOfEachUplink) {
  // ecmp: spray builds the pod's 16 spines as one switch, spine0, and each leaf's 16 uplinks
  // to them as one link of 16 x 400 Gb/s = 800 GB/s. Spine 3 failing takes one cable of
  // each: 15/16 of it, 750 GB/s. Its cable from leaf 0 named as well is the same cable.
  LoadedScenario l =
      parse_scenario(with_failed("    - switch: spine3\n    - link: leaf0-spine3\n", "spray"),
                     "s.yaml");
  EXPECT_DOUBLE_EQ(merged_bandwidth(l, "leaf0", "spine0"), 750e9);
  EXPECT_DOUBLE_EQ(merged_bandwidth(l, "leaf1", "spine0"), 750e9);
  // Two more of leaf 1's cables: 13/16.
  l = parse_scenario(with_failed("    - switch: spine3\n    - link: leaf1-spine4\n"
                                 "    - link: spine5-leaf1\n",
                                 "spray"),
                     "s.yaml");
  EXPECT_DOUBLE_EQ(merged_bandwidth(l, "leaf0", "spine0"), 750e9);
  EXPECT_DOUBLE_EQ(merged_bandwidth(l, "leaf1", "spine0"), 650e9);
  // Every cable is a degraded link, not a failed one: rail bundling and the routes stand.
  for (int id = 0; id < l.topology.link_count(); ++id) EXPECT_FALSE(l.topology.link_failed(id));
}

TEST(FaultsLoader, RefusesSprayedPartsTheFabricDoesNotHave) {
  // Spines are numbered as a fabric that builds every cable numbers them: 16 here, one pod.
  EXPECT_EQ(error_of(with_failed("    - switch: spine16\n", "spray")),
            "s.yaml: faults.failed[0].switch = 'spine16': is not a spine of this sprayed fabric "
            "(spine0 to spine15, numbered as a fabric that builds every cable numbers them)");
  EXPECT_EQ(error_of(with_failed("    - link: leaf9-spine2\n", "spray")),
            "s.yaml: faults.failed[0].link = 'leaf9-spine2': is not a link of this fabric: leaf9 "
            "is not a leaf of spine2's pod");
  // All 16 spines: the last takes the last cable of every uplink, and the fabric is cut.
  std::string all;
  for (int n = 0; n < 16; ++n) all += "    - switch: spine" + std::to_string(n) + "\n";
  EXPECT_EQ(error_of(with_failed(all, "spray")).rfind(
                "s.yaml: faults.failed[15].switch = 'spine15': cuts the fabric", 0),
            0u);
  // A leaf is its own switch there: failing it is refused only because it cuts.
  std::string e = error_of(with_failed("    - switch: leaf1\n", "spray"));
  EXPECT_NE(e.find("cuts the fabric"), std::string::npos) << e;
}

TEST(FaultsLoader, ReadsTheReliabilitySectionAndWritesItBack) {
  Scenario s = parse_scenario(kJob + "reliability:\n  hbm_mtbf: 100000h\n  switch_mtbf: 2e5h\n"
                                     "  storage_bandwidth: 2TB/s\n  restart: 10min\n"
                                     "  async: true\n  seed: 3\n  storage_switches: leaf\n"
                                     "  storage_network: 400Gb/s\n",
                              "s.yaml")
                   .scenario;
  const ReliabilitySpec& r = s.reliability;
  EXPECT_EQ(r.storage_level, 1);
  EXPECT_EQ(r.storage_network.value(), 50e9); // 400 Gb/s
  EXPECT_EQ(mtbf_of(r, Component::hbm)->value(), 1e5 * 3600);
  EXPECT_EQ(mtbf_of(r, Component::gpu), llama3_mtbf(Component::gpu)); // not given: Llama 3's
  EXPECT_FALSE(mtbf_of(r, Component::network).has_value()); // switches replace it
  EXPECT_EQ(r.restart.value(), 600);
  EXPECT_TRUE(r.async);
  Scenario back = parse_scenario(scenario_yaml(s, ""), "s.yaml").scenario;
  EXPECT_EQ(back.reliability, s.reliability);
  EXPECT_EQ(provenance_json(back).at("scenario"), provenance_json(s).at("scenario"));
  // result.json lists every MTBF in effect, the defaults included.
  EXPECT_EQ(provenance_json(s).at("scenario").at("reliability").at("gpu_mtbf"),
            llama3_mtbf(Component::gpu)->value());
}

TEST(FaultsLoader, RefusesAStorageTierItDoesNotKnow) {
  EXPECT_EQ(error_of(kJob + "reliability:\n  storage_switches: spines\n"),
            "s.yaml: reliability.storage_switches = 'spines': must be one of top, leaf, spine, "
            "core (did you mean 'spine'?)");
}

TEST(FaultsLoader, NamesTheKeyItDoesNotKnow) {
  std::string e = error_of(with_faults("    - rank: 1\n      factr: 0.5\n"));
  EXPECT_NE(e.find("faults.slow_gpus[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("factr"), std::string::npos) << e;
  e = error_of(kJob + "faults:\n  slow_gpu: []\n");
  EXPECT_NE(e.find("slow_gpu"), std::string::npos) << e;
  EXPECT_NE(e.find("slow_gpus"), std::string::npos) << e; // did you mean
}

} // namespace
} // namespace trainsim
