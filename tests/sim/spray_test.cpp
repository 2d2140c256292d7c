// Packet spraying (`ecmp: spray`, topologies/fat_tree.cpp) in the simulator: a leaf's uplinks,
// built as one link of their summed bandwidth, share it among the flows that leave the leaf,
// where a hash would put some on one plane. Network model as in collectives_test.cpp: a comm
// of s bytes on a path of latency a and bottleneck b takes a + s/b.
#include <gtest/gtest.h>

#include "sim/collective_run.hpp"
#include "topologies/fat_tree.hpp"

namespace trainsim::sim {
namespace {

constexpr double MiB = 1024.0 * 1024.0;

// 8 nodes of 1 GPU, 4 per leaf, 2:1 oversubscribed: a leaf's 2 uplinks are one link of 100 GB/s
// each way. n = 64 MiB: round k sends n/8 = 8388608 B to member me+k, and c_k = 1, 2, 3, 4, 3, 2, 1
// of a leaf's 4 flows leave it (k = 1..7), each at min(50 GB/s NIC, 100 GB/s / c_k): 167.772 us for
// c <= 2, 251.658 us for 3, 335.544 us for 4, 1509.949 us, plus 7 rounds x 6 hops x 0.5 us = 21 us:
// 1530.95 us. Hashed onto the two planes of 50 GB/s, 3 flows put 2 on one: rounds 3 and 5 would
// take 335.544 us each, at least 1698.72 us in all.
TEST(Spray, AllToAllFlowsShareALeafsUplinksEvenly) {
  topo::FatTreeParams p;
  p.nodes = 8;
  p.gpus_per_node = 1;
  p.leaf_down_ports = 4;
  p.oversubscription = 2;
  p.ecmp = "spray";
  topo::Topology t = topo::build_fat_tree(p);
  for (Fidelity f : {Fidelity::fast, Fidelity::fine}) {
    CollectiveOutcome out = simulate_collective(
        t, CollectiveCall{"pairwise", CollectiveOp::all_to_all, Bytes(64 * MiB), f, {0, 1, 8}, 1});
    EXPECT_EQ(out.returned, 8);
    EXPECT_NEAR(out.finish.value(), 1530.95e-6, 0.01 * 1530.95e-6);
  }
}

} // namespace
} // namespace trainsim::sim
