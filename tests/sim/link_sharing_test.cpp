// How two flows share a saturated link (sim/platform.cpp): alike, whatever their paths'
// latencies, as InfiniBand's credit-based flow control shares a port, not in inverse
// proportion to the route latency as SimGrid's CM02 would (TCP's RTT unfairness).
//
// The fabric: 4 nodes of 1 GPU, 2 NIC ports per leaf, so nodes 0-1 hang off leaf 0 and nodes
// 2-3 off leaf 1. GPU 1 -> GPU 0 stays on leaf 0: GPU-NIC-leaf-NIC-GPU, 4 hops of 0.5 us
// (2 us). GPU 2 -> GPU 0 crosses a spine: 6 hops (3 us). Both enter GPU 0 through the one
// leaf 0 -> NIC 0 link (50 GB/s, 400 Gb/s), the tightest link of either route (the PCIe
// host links are 64 GB/s), and nothing else of theirs is shared.
#include <gtest/gtest.h>

#include <cstring>
#include <simgrid/s4u.hpp>

#include "sim/platform.hpp"
#include "sim/simulation.hpp"
#include "topologies/fat_tree.hpp"

namespace trainsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

struct Arrivals {
  double near = 0, far = 0; ///< s, when each flow was delivered
};

// GPUs 1 (near) and 2 (far) each send `bytes` to GPU 0 at time 0; `shared` false makes every
// link a fat pipe.
Arrivals two_flows_into_one_nic(double bytes, bool shared = true) {
  topo::FatTreeParams p;
  p.nodes = 4;
  p.gpus_per_node = 1;
  p.leaf_down_ports = 2;
  topo::Topology t = topo::build_fat_tree(p);
  std::string raw = run_isolated(t, GpuSpec{}, [&](Platform& platform) {
    Arrivals out;
    static int payload = 0;
    for (int from : {1, 2})
      sg4::Actor::create("send" + std::to_string(from), platform.host(from), [from, bytes] {
        auto size = static_cast<uint64_t>(bytes);
        sg4::Mailbox::by_name("to0-" + std::to_string(from))->put(&payload, size);
      });
    for (int from : {1, 2})
      sg4::Actor::create("recv" + std::to_string(from), platform.host(0), [from, &out] {
        sg4::Mailbox::by_name("to0-" + std::to_string(from))->get<int>();
        (from == 1 ? out.near : out.far) = sg4::Engine::get_clock();
      });
    sg4::Engine::get_instance()->run();
    return std::string(reinterpret_cast<const char*>(&out), sizeof out);
  }, nullptr, shared);
  Arrivals out;
  std::memcpy(&out, raw.data(), sizeof out);
  return out;
}

TEST(LinkSharing, FlowsOfDifferentPathLengthsShareALinkAlike) {
  // 100 MB each through one 50 GB/s link. Shared alike, each moves at 25 GB/s and both finish
  // with the last byte of the 200 MB: 200e6 / 50e9 = 4 ms (plus microseconds of latency).
  // Shared by 1 / latency (weights 1/2 and 1/3 us), the near flow would take 3/5 of the link,
  // 30 GB/s, and finish at 100e6 / 30e9 = 3.33 ms, the far one at 4 ms.
  Arrivals a = two_flows_into_one_nic(100e6);
  EXPECT_NEAR(a.far, 4e-3, 0.005 * 4e-3);
  EXPECT_NEAR(a.near, 4e-3, 0.005 * 4e-3);
}

TEST(LinkSharing, OnFatPipesNoFlowSlowsAnother) {
  // validate's fast-vs-fine check without contention (SimOptions::shared_links false): each
  // flow moves at the link's whole 50 GB/s, 100e6 / 50e9 = 2 ms, however many share it.
  Arrivals a = two_flows_into_one_nic(100e6, false);
  EXPECT_NEAR(a.far, 2e-3, 0.005 * 2e-3);
  EXPECT_NEAR(a.near, 2e-3, 0.005 * 2e-3);
}

TEST(LinkSharing, EachFlowStillPaysItsOwnRoutesLatency) {
  // 1 byte each: nothing to share, the arrival is the route's latency (2 us and 3 us above).
  Arrivals a = two_flows_into_one_nic(1);
  EXPECT_NEAR(a.near, 2e-6, 1e-9);
  EXPECT_NEAR(a.far, 3e-6, 1e-9);
}

} // namespace
} // namespace trainsim::sim
