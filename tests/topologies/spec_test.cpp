// The typed topology spec: a section is parsed once into a generator's struct, a struct made
// in code is counted and built with no text at all, and the resolved keys parse back to the
// same spec.
#include "route_check.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/spec.hpp"

#include <variant>

#include <gtest/gtest.h>

namespace trainsim::topo {
namespace {

using test::error_of;
using test::spec;

// The count must be the graph's: the loader refuses on the count before it builds.
void expect_counted_as_built(const TopologySpec& s) {
  std::optional<TopologySize> size = topology_size(s);
  ASSERT_TRUE(size.has_value()) << s.generator;
  Topology t = build_topology(s);
  EXPECT_EQ(size->gpus, t.gpu_count()) << s.generator;
  EXPECT_EQ(size->vertices, static_cast<double>(boost::num_vertices(t.graph()))) << s.generator;
  EXPECT_EQ(size->links, t.link_count()) << s.generator;
}

TEST(Spec, AStructMadeInCodeIsCountedAndBuiltWithoutText) {
  // 3 tiers: 8 nodes x 2 GPUs on leaves of 2 NICs, radix 4: 8 leaves in 4 pods.
  FatTreeParams clos{.nodes = 8, .gpus_per_node = 2, .leaf_down_ports = 2, .tiers = 3, .radix = 4};
  FatTreeParams rails = clos;
  rails.rail_optimized = true;
  // 5 groups x 2 routers x 2 global links: 4 ports per group, one global link per pair.
  DragonflyParams dragonfly{.groups = 5, .routers_per_group = 2};
  TorusParams torus{.dims = {2, 3, 4}};
  for (const TopologySpec& s :
       {TopologySpec(clos), TopologySpec(rails), TopologySpec(dragonfly), TopologySpec(torus)})
    expect_counted_as_built(s);
  EXPECT_EQ(TopologySpec(clos).generator, "fat-tree");
  EXPECT_EQ(TopologySpec(rails).generator, "rail-optimized");
  EXPECT_EQ(TopologySpec(dragonfly).generator, "dragonfly");
  EXPECT_EQ(TopologySpec(torus).generator, "torus");
  EXPECT_EQ(TopologySpec(ImportParams{}).generator, "file");
  EXPECT_TRUE(TopologySpec(clos).given.empty());
  // A struct converts to a spec where one is expected: 4 nodes x 8 GPUs.
  EXPECT_EQ(build_topology(FatTreeParams{.nodes = 4}).gpu_count(), 32);
}

TEST(Spec, EachGeneratorParsesToItsDefaults) {
  // The generators without a required key, and the others given only that key, parse to the
  // struct's defaults (models/topology_spec.hpp) or their named machine's (fat_tree.hpp).
  EXPECT_EQ(spec({{"generator", "fat-tree"}, {"nodes", "1"}}), TopologySpec(FatTreeParams{}));
  EXPECT_EQ(spec({{"generator", "rail-optimized"}, {"nodes", "1"}}),
            TopologySpec(FatTreeParams{.rail_optimized = true}));
  EXPECT_EQ(spec({{"generator", "dragonfly"}}), TopologySpec(DragonflyParams{}));
  EXPECT_EQ(spec({{"generator", "torus"}, {"dims", "4x4"}}), TopologySpec(TorusParams{}));
  // dgx-h100 and nvl72 keep their own names; their structs are the named machines'.
  TopologySpec dgx = spec({{"generator", "dgx-h100"}});
  EXPECT_EQ(dgx.generator, "dgx-h100");
  EXPECT_EQ(std::get<FatTreeParams>(dgx.params), dgx_h100_defaults());
  EXPECT_EQ(std::get<FatTreeParams>(dgx.params).nodes, 32); // one SuperPOD unit
  EXPECT_EQ(std::get<FatTreeParams>(spec({{"generator", "nvl72"}}).params), nvl72_defaults());
  // An imported graph: the folder of s.yaml is the working directory, so the path stays as is.
  ImportParams file =
      std::get<ImportParams>(spec({{"generator", "file"}, {"path", "g.json"}}).params);
  EXPECT_EQ(file, (ImportParams{.path = "g.json"}));
  EXPECT_EQ(file.format, "auto");
  EXPECT_EQ(file.gpus_per_node, 0); // inferred from the graph
  EXPECT_EQ(file.route_cache_mib, 256);
}

TEST(Spec, GivenKeysOverrideTheDefaults) {
  TopologySpec s = spec({{"generator", "fat-tree"}, {"nodes", "2"}, {"nic_bandwidth", "400Gbps"}});
  EXPECT_EQ(s.generator, "fat-tree");
  const auto& p = std::get<FatTreeParams>(s.params);
  EXPECT_EQ(p.nodes, 2);
  EXPECT_DOUBLE_EQ(p.nic_bandwidth.value(), 50e9);  // 400 Gb/s / 8 bits
  EXPECT_DOUBLE_EQ(p.pcie_bandwidth.value(), 64e9); // the default
  EXPECT_FALSE(p.rail_optimized);
  EXPECT_EQ(s.given, (std::map<std::string, std::string>{
                         {"generator", "fat-tree"}, {"nic_bandwidth", "400Gbps"}, {"nodes", "2"}}));
  expect_counted_as_built(s);
  // A named machine's defaults are overridden key by key: dgx-h100 with 4 nodes keeps radix 64.
  FatTreeParams dgx =
      std::get<FatTreeParams>(spec({{"generator", "dgx-h100"}, {"nodes", "4"}}).params);
  EXPECT_EQ(dgx.nodes, 4);
  EXPECT_EQ(dgx.radix, 64);
  EXPECT_TRUE(dgx.rail_optimized);
  EXPECT_EQ(std::get<TorusParams>(spec({{"generator", "torus"}, {"dims", "2x3x4"}}).params).dims,
            (std::vector<int>{2, 3, 4}));
}

TEST(Spec, AStructMadeInCodeEqualsTheSectionThatSaysTheSame) {
  // 200 Gb/s = 25 GB/s; 1.5 us = 1.5e-6 s.
  EXPECT_EQ(spec({{"generator", "fat-tree"},
                  {"nodes", "30"},
                  {"gpus_per_node", "4"},
                  {"leaf_down_ports", "8"},
                  {"tiers", "3"},
                  {"radix", "16"},
                  {"nic_bandwidth", "200Gbps"},
                  {"network_latency", "1.5us"}}),
            TopologySpec(FatTreeParams{.nodes = 30,
                                       .gpus_per_node = 4,
                                       .nic_bandwidth = BytesPerSecond(25e9),
                                       .network_latency = Seconds(1.5e-6),
                                       .leaf_down_ports = 8,
                                       .tiers = 3,
                                       .radix = 16}));
  DragonflyParams dragonfly{.groups = 5, .global_bandwidth = BytesPerSecond(100e9)}; // 0.1 TB/s
  dragonfly.node.gpus_per_node = 4;
  EXPECT_EQ(spec({{"generator", "dragonfly"},
                  {"groups", "5"},
                  {"gpus_per_node", "4"},
                  {"global_bandwidth", "0.1TBps"}}),
            TopologySpec(dragonfly));
  EXPECT_EQ(spec({{"generator", "torus"}, {"dims", "5x2x1"}, {"link_latency", "0us"}}),
            TopologySpec(TorusParams{.dims = {5, 2, 1}, .link_latency = Seconds(0)}));
  // A different value is a different fabric.
  EXPECT_NE(spec({{"generator", "fat-tree"}, {"nodes", "2"}}),
            TopologySpec(FatTreeParams{.nodes = 3}));
}

std::vector<std::string> keys_of(const TopologySpec& s) {
  std::vector<std::string> keys;
  for (const TopologySetting& setting : topology_settings(s)) keys.push_back(setting.key);
  return keys;
}

TEST(Spec, SettingsListEveryKeyGivenOrDefault) {
  // The fat-tree's keys in the order they are read (docs/topologies.md): nodes, the node
  // keys, then the Clos's; the generator first.
  EXPECT_EQ(keys_of(spec({{"generator", "fat-tree"}, {"nodes", "2"}})),
            (std::vector<std::string>{"generator", "nodes", "gpus_per_node", "nvlink_bandwidth",
                                      "nvlink_latency", "pcie_bandwidth", "pcie_latency",
                                      "nic_bandwidth", "network_latency", "leaf_down_ports",
                                      "oversubscription", "tiers", "radix", "ecmp"}));
  EXPECT_EQ(keys_of(spec({{"generator", "torus"}, {"dims", "4x4"}})),
            (std::vector<std::string>{"generator", "dims", "link_bandwidth", "link_latency"}));
  // An imported graph's gpus_per_node is inferred from the file unless given.
  EXPECT_EQ(keys_of(spec({{"generator", "file"}, {"path", "g.json"}})),
            (std::vector<std::string>{"generator", "path", "format", "route_cache_mib",
                                      "nvswitch_planes"}));
  EXPECT_EQ(keys_of(spec({{"generator", "file"}, {"path", "g.json"}, {"gpus_per_node", "4"}})),
            (std::vector<std::string>{"generator", "path", "format", "gpus_per_node",
                                      "route_cache_mib", "nvswitch_planes"}));
  std::vector<TopologySetting> s = topology_settings(
      spec({{"generator", "fat-tree"}, {"nodes", "2"}, {"nic_bandwidth", "400Gbps"}}));
  EXPECT_EQ(s[1].text, "2");
  EXPECT_TRUE(s[1].given);
  EXPECT_EQ(s[4].text, "5e-07s"); // nvlink_latency's default, 0.5 us, in SI base units
  EXPECT_FALSE(s[4].given);
  EXPECT_EQ(s[7].text, "400Gbps"); // nic_bandwidth as written; its value is 400 Gb/s = 50 GB/s
  EXPECT_DOUBLE_EQ(std::get<BytesPerSecond>(s[7].quantity).value(), 50e9);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(s[1].quantity)); // a count is no link figure
  // Made in code, nothing was written: every value is in SI base units ("5e+10Bps" = 50 GB/s).
  std::vector<TopologySetting> code = topology_settings(FatTreeParams{.nodes = 2});
  EXPECT_EQ(code[7].text, "5e+10Bps");
  EXPECT_FALSE(code[7].given);
}

TEST(Spec, ResolvedSettingsParseBackToTheSameSpec) {
  using Kv = std::map<std::string, std::string>;
  for (const Kv& kv : std::vector<Kv>{
           {{"generator", "fat-tree"},
            {"nodes", "30"},
            {"gpus_per_node", "4"},
            {"leaf_down_ports", "8"},
            {"tiers", "3"},
            {"radix", "16"},
            {"oversubscription", "1.5"},
            {"network_latency", "1.5us"}},
           {{"generator", "rail-optimized"}, {"nodes", "40"}, {"nic_bandwidth", "200Gbps"}},
           {{"generator", "nvl72"}},
           {{"generator", "dragonfly"}, {"groups", "5"}, {"global_bandwidth", "0.1TBps"}},
           {{"generator", "torus"}, {"dims", "5x2x1"}, {"link_latency", "0us"}},
           {{"generator", "file"}, {"path", "g.json"}, {"gpus_per_node", "4"}}}) {
    TopologySpec first = spec(kv);
    Kv resolved;
    for (const TopologySetting& s : topology_settings(first)) resolved[s.key] = s.text;
    EXPECT_EQ(spec(resolved), first) << kv.at("generator");
  }
}

TEST(Spec, StructsMadeInCodeAreCheckedAsSectionsAre) {
  // 4 groups: 3 does not divide 4 routers x 2 global links. A struct has no file and no text:
  // the messages name the struct and an empty value.
  EXPECT_EQ(error_of([] { build_topology(DragonflyParams{.groups = 4}); }),
            "DragonflyParams: groups = '': groups - 1 must divide routers_per_group x global_links "
            "= 8 (every pair "
            "of groups gets the same number of global links)");
  EXPECT_EQ(error_of([] {
              (void)topology_size(TorusParams{.dims = {4, 4, 4, 4}});
            }),
            "TorusParams: dims = '': must have 2 or 3 dimensions");
  EXPECT_EQ(error_of([] { (void)topology_size(FatTreeParams{.network_latency = Seconds(-1e-6)}); }),
            "FatTreeParams: network_latency = '': must not be negative");
  EXPECT_EQ(error_of([] { build_topology(ImportParams{.path = "g.json", .route_cache_mib = 0}); }),
            "ImportParams: route_cache_mib = '': must be greater than zero");
  EXPECT_EQ(error_of([] { build_topology(ImportParams{}); }),
            "ImportParams: path = '': is missing");
}

TEST(Spec, UnknownKeysAreRejectedWithASuggestion) {
  EXPECT_EQ(error_of([] {
              (void)spec({{"generator", "torus"}, {"dims", "4x4"}, {"link_bandwith", "1GBps"}});
            }),
            "s.yaml: system.topology.link_bandwith = '1GBps': unknown key (did you mean "
            "'link_bandwidth'?)");
  EXPECT_EQ(error_of([] {
              (void)spec({{"generator", "file"}, {"path", "g.json"}, {"fromat", "csv"}});
            }),
            "s.yaml: system.topology.fromat = 'csv': unknown key (did you mean 'format'?)");
  // The typo left global_links at its default 2, which 4 groups cannot share evenly: the typo
  // is the problem to report.
  EXPECT_EQ(
      error_of([] {
        (void)spec({{"generator", "dragonfly"}, {"groups", "4"}, {"global_link", "3"}});
      }),
      "s.yaml: system.topology.global_link = '3': unknown key (did you mean 'global_links'?)");
}

} // namespace
} // namespace trainsim::topo
