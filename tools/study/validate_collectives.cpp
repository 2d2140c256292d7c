// Section 3 of docs/validation.md: each collective algorithm alone on a contention-free graph
// against its alpha-beta time, reported as NCCL-tests algorithm and bus bandwidth.
//
// Graphs: all nodes on one leaf of a fat-tree (a crossbar: every GPU has its own NIC, PCIe and
// NVLink links), so a ring neighbour pair, a tree edge or a pairwise exchange never shares a
// link with another flow of the same step; a direct exchange's p - 1 flows share only their
// own GPU's links, equally. Alpha and B are read off the graph the same way
// the closed form does (topologies/group_paths): alpha = the GPU-to-GPU path latency, B = its
// bottleneck bandwidth (50 GB/s NIC across nodes; 450 GB/s NVLink inside one).
//
// The alpha-beta times below are written out here on purpose, apart from the catalogue's
// bound prices (models/collective_cost.cpp): an independent reading of each algorithm, so
// that a mistake shared by the price and the implementation still shows.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "sim/progress.hpp"
#include "models/collective_cost.hpp"
#include "sim/log.hpp"

#include "sim/collectives.hpp"
#include "sim/collective_run.hpp"
#include "topologies/group_paths.hpp"
#include "tools/study/validation.hpp"
#include "tools/study/validation_children.hpp"
#include "topologies/fat_tree.hpp"

namespace trainsim {
namespace {

using sim::CollectiveOp;
using sim::Fidelity;

constexpr double kMiB = 1024.0 * 1024.0;

topo::Topology one_leaf(int nodes, int gpus_per_node) {
  topo::FatTreeParams p;
  p.nodes = nodes;
  p.gpus_per_node = gpus_per_node;
  p.leaf_down_ports = nodes * gpus_per_node;
  return topo::build_fat_tree(p);
}

/// Every rank of the topology calls the collective once; the time the last one returns.
double simulate_collective(const topo::Topology& t, const std::string& algorithm, CollectiveOp op,
                           double bytes, Fidelity fidelity) {
  sim::CollectiveCall call{algorithm, op, Bytes(bytes), fidelity, {0, 1, t.gpu_count()}};
  call.channel = "validate";
  return sim::simulate_collective(t, call).finish.value();
}

struct AlphaBeta {
  double alpha, bandwidth; // s, B/s
};

AlphaBeta alpha_beta(const topo::Topology& t, int src, int dst) {
  PairCost c = topo::path_cost(t, src, dst);
  return {c.latency.value(), c.bandwidth.value()};
}

// p-1 steps, each moving n/p bytes over the pair's path.
double ring_phase(double n, int p, AlphaBeta t) {
  return (p - 1) * (t.alpha + n / p / t.bandwidth);
}

struct Formula {
  double seconds = 0;
  bool exact = true;
};

// The tree pipelines C segments (one per MiB of each half, 1..64, as sim/collective_tree.cpp)
// through two binary trees of height H: 2H + C - 1 steps, and each inner node moves 2n bytes
// in all. Fill and drain steps carry fewer segments than the steady state, which this textbook
// formula does not count, so it is an approximation (within a few percent; see the report).
Formula tree_allreduce(double n, int p, AlphaBeta t) {
  int h = static_cast<int>(std::ceil(std::log2(p)));
  int segments = std::clamp(static_cast<int>(std::ceil(n / 2 / kMiB)), 1, 64);
  // With two ranks each tree is one edge: every byte crosses it once, up or down.
  double bandwidth_term = (p == 2 ? 1 : 2) * n / t.bandwidth;
  return {(2 * h + segments - 1) * t.alpha + bandwidth_term, false};
}

Formula formula(const std::string& algorithm, CollectiveOp op, double n,
                const topo::Topology& topology) {
  int p = topology.gpu_count(), b = topology.gpus_per_node();
  AlphaBeta nv = alpha_beta(topology, 0, 1);
  AlphaBeta net = p > b ? alpha_beta(topology, 0, b) : nv;
  AlphaBeta flat = b >= p ? nv : net; // the slowest tier a ring step waits for
  if (algorithm == "tree") return tree_allreduce(n, p, flat);
  if (algorithm == "hierarchical") { // ring inside each node, then over nodes on n/b
    int nodes = p / b;
    return {2 * ring_phase(n, b, nv) + 2 * ring_phase(n / b, nodes, net)};
  }
  if (algorithm == "pat") { // one member per node: ceil(log2 p) steps, (p-1)/p n per half
    double phase = pat_steps(p) * net.alpha + (p - 1.0) / p * n / net.bandwidth;
    return {op == CollectiveOp::all_reduce ? 2 * phase : phase};
  }
  if (algorithm == "direct") { // one exchange of n/p with every other member per half
    double phase = flat.alpha + (p - 1.0) / p * n / flat.bandwidth;
    return {op == CollectiveOp::all_reduce ? 2 * phase : phase};
  }
  double phase = ring_phase(n, p, flat); // ring RS/AG and pairwise all-to-all: p-1 rounds of n/p
  return {op == CollectiveOp::all_reduce ? 2 * phase : phase};
}

double bus_factor(CollectiveOp op, int p) {
  double f = static_cast<double>(p - 1) / p;
  return op == CollectiveOp::all_reduce ? 2 * f : f;
}

struct Case {
  std::string algorithm;
  CollectiveOp op;
  int ranks, gpus_per_node;
};

CollectiveCheck run_case(const Case& c, double bytes) {
  logger("trainsim.validate")
      ->info("validate: {} {} over {} ranks", c.algorithm, to_string(c.op), c.ranks);
  topo::Topology t = one_leaf(c.ranks / c.gpus_per_node, c.gpus_per_node);
  // Fine mode issues every step's flows (the reference); above 64 ranks fast mode, which
  // is identical without contention by construction (docs/fast-mode.md), keeps it quick.
  Fidelity fidelity = c.ranks <= 64 ? Fidelity::fine : Fidelity::fast;
  CollectiveCheck r;
  r.algorithm = c.algorithm;
  r.op = to_string(c.op);
  r.graph = std::to_string(c.ranks / c.gpus_per_node) + " nodes x " +
            std::to_string(c.gpus_per_node) + ", one leaf";
  r.fidelity = fidelity == Fidelity::fine ? "fine" : "fast";
  r.ranks = c.ranks;
  r.bytes = bytes;
  r.simulated_s = simulate_collective(t, c.algorithm, c.op, bytes, fidelity);
  Formula f = formula(c.algorithm, c.op, bytes, t);
  r.formula_s = f.seconds;
  r.exact_formula = f.exact;
  r.algbw = bytes / r.simulated_s;
  r.busbw = r.algbw * bus_factor(c.op, c.ranks);
  return r;
}

std::vector<Case> cases(bool quick) {
  using enum CollectiveOp;
  // Full run: up to 100k ranks for the all-reduces (each of those takes a minute or two);
  // reduce-scatter and all-gather are the all-reduce's two halves, so 4096 ranks suffice;
  // pairwise all-to-all issues p - 1 flows per rank, so p^2 in all: 512 ranks.
  std::vector<int> flat =
      quick ? std::vector<int>{2, 8, 64} : std::vector<int>{2, 8, 64, 512, 4096, 32768, 100000};
  std::vector<int> halves =
      quick ? std::vector<int>{2, 8, 64} : std::vector<int>{2, 8, 64, 512, 4096};
  std::vector<int> pairwise = quick ? std::vector<int>{2, 8, 64} : std::vector<int>{2, 8, 64, 512};
  std::vector<int> nodes =
      quick ? std::vector<int>{2, 8} : std::vector<int>{2, 8, 64, 512, 4096, 12500};
  std::vector<Case> out;
  for (int p : flat) out.push_back({"ring", all_reduce, p, 1});
  for (int p : halves) out.push_back({"ring", reduce_scatter, p, 1});
  for (int p : halves) out.push_back({"ring", all_gather, p, 1});
  for (int p : flat) out.push_back({"tree", all_reduce, p, 1});
  for (int n : nodes) out.push_back({"hierarchical", all_reduce, 8 * n, 8});
  for (int p : halves) out.push_back({"pat", all_gather, p, 1});
  for (int p : halves) out.push_back({"pat", reduce_scatter, p, 1});
  for (int p : pairwise) out.push_back({"pairwise", all_to_all, p, 1});
  // Direct inside one NVLink node (Transformer Engine's TP overlap), and across nodes, where
  // like pairwise it issues p - 1 flows per rank.
  for (CollectiveOp op : {all_reduce, reduce_scatter, all_gather})
    out.push_back({"direct", op, 8, 8});
  for (int p : pairwise) out.push_back({"direct", all_reduce, p, 1});
  return out;
}

} // namespace

std::vector<CollectiveCheck> collective_checks(bool quick) {
  std::vector<Case> all = cases(quick);
  std::vector<std::function<CollectiveCheck()>> tasks;
  for (const Case& c : all) tasks.push_back([&c] { return run_case(c, 256 * kMiB); });
  sim::Progress progress("validate: collectives", static_cast<double>(all.size()),
                         "collectives simulated", sim::Progress::Show::count);
  return validation::side_by_side(tasks, progress);
}

} // namespace trainsim
