// Builds and checks a 100k-GPU rail-optimized 3-tier fat-tree, then times route queries;
// then the same for a 100k-GPU torus and dragonfly. Prints build time, peak resident memory
// and routes per second. Not a test: numbers depend
// on the machine. Usage: bench_topology [nodes=12500] [queries=5000000]
//
// Fabric: 12,500 DGX H100-style nodes x 8 GPUs = 100,000 GPUs; radix-128 switches, 64 nodes
// per rail leaf -> 196 groups x 8 rails = 1,568 leaves, pods of 64 leaves -> 25 pods,
// 64 planes x 64 cores.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "topologies/describe.hpp"
#include "topologies/dragonfly.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/import.hpp"
#include "topologies/torus.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KiB on Linux
}

trainsim::topo::FatTreeParams fabric(int nodes) {
  trainsim::topo::FatTreeParams p;
  p.nodes = nodes;
  p.leaf_down_ports = 64;
  p.tiers = 3;
  p.radix = 128;
  p.rail_optimized = true;
  return p;
}

// Random pairs from a fixed seed, so runs are comparable.
std::vector<std::pair<int, int>> random_pairs(int gpus, long count) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> rank(0, gpus - 1);
  std::vector<std::pair<int, int>> pairs;
  pairs.reserve(static_cast<size_t>(count));
  while (static_cast<long>(pairs.size()) < count) {
    int s = rank(rng), d = rank(rng);
    if (s != d) pairs.emplace_back(s, d);
  }
  return pairs;
}

// True when the route's hops chain from the source GPU to the destination GPU.
bool valid_route(const trainsim::topo::Topology& t, int src, int dst,
                 const std::vector<trainsim::topo::Hop>& hops) {
  auto at = t.gpu_vertex(src);
  for (auto h : hops) {
    auto [a, b] = t.link_ends(h.link);
    if ((h.forward ? a : b) != at) return false;
    at = h.forward ? b : a;
  }
  return at == t.gpu_vertex(dst);
}

// Checks `count` random routes; returns how many were invalid.
long invalid_routes(const trainsim::topo::Topology& t, long count) {
  std::vector<trainsim::topo::Hop> hops;
  long invalid = 0;
  for (auto [s, d] : random_pairs(t.gpu_count(), count)) {
    hops.clear();
    t.route(s, d, hops);
    invalid += !valid_route(t, s, d, hops);
  }
  return invalid;
}

// 65 groups of 16 routers with 4 global links each (a balanced dragonfly: g = a * h + 1),
// 12 DGX-style nodes per router: 65 x 16 x 12 x 8 = 99,840 GPUs.
trainsim::topo::DragonflyParams dragonfly() {
  trainsim::topo::DragonflyParams p;
  p.groups = 65;
  p.routers_per_group = 16;
  p.global_links = 4;
  p.nodes_per_router = 12;
  return p;
}

// The hop vector is reused, as the simulator would.
double routes_per_second(const trainsim::topo::Topology& t, long queries, long& hops_total) {
  auto pairs = random_pairs(t.gpu_count(), queries);
  std::vector<trainsim::topo::Hop> hops;
  auto start = Clock::now();
  for (auto [s, d] : pairs) {
    hops.clear();
    t.route(s, d, hops);
    hops_total += static_cast<long>(hops.size());
  }
  return static_cast<double>(queries) / seconds_since(start);
}

// Builds, checks and routes one fabric; returns false when a sampled route was invalid.
template <class Build>
bool run(const char* name, Build build, long queries) {
  auto start = Clock::now();
  auto topology = build();
  double built = seconds_since(start);
  trainsim::topo::check_connected(topology.graph(), "bench");
  auto description = trainsim::topo::summarize(topology);
  long invalid = invalid_routes(topology, 100'000);
  double checked = seconds_since(start);
  std::printf("%s: %d GPUs, %d links\n", name, description.gpus, description.links);
  std::printf("  build: %.2f s; build + connectivity check + summary + 100k routes validated (%ld "
              "invalid): %.2f s\n",
              built, invalid, checked);
  std::printf("  peak RSS so far: %.0f MiB\n", peak_rss_mib());
  long hops = 0;
  double rate = routes_per_second(topology, queries, hops);
  std::printf("  routes: %.2f M/s over %ld random pairs (%.2f hops per route)\n", rate / 1e6,
              queries, static_cast<double>(hops) / static_cast<double>(queries));
  return invalid == 0;
}

} // namespace

int main(int argc, char** argv) {
  int nodes = argc > 1 ? std::atoi(argv[1]) : 12500;
  long queries = argc > 2 ? std::atol(argv[2]) : 5'000'000;
  // First, while peak RSS is still this fabric's alone: the figure the issue asks about.
  bool ok = run(
      "rail-optimized 3-tier fat-tree (radix 128)",
      [&] { return trainsim::topo::build_fat_tree(fabric(nodes)); }, queries);
  ok &= run(
      "torus 50x50x40",
      [] {
        return trainsim::topo::build_torus(trainsim::topo::TorusParams{{50, 50, 40}});
      },
      queries);
  ok &= run(
      "dragonfly 65 groups x 16 routers x 12 nodes",
      [] { return trainsim::topo::build_dragonfly(dragonfly()); }, queries);
  return ok ? 0 : 1;
}
