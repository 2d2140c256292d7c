// A checkpoint's write over the fabric to the storage tier (topologies/storage.hpp,
// sim/checkpoint_write.hpp): where the servers' links are the narrowest part, the write takes
// the state over their bandwidth; where the fabric is, the fabric sets it.
#include "tests/sim/step_fixtures.hpp"

#include "sim/checkpoint_write.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/storage.hpp"

namespace trainsim {
namespace {

using namespace testing;

// 4 nodes of 4 GPUs, one node per leaf, 4 spines, every cable built; no latency anywhere.
topo::Topology fabric16() {
  topo::FatTreeParams f = fat_tree(4, 4);
  f.nvlink_latency = f.pcie_latency = f.network_latency = Seconds(0);
  f.leaf_down_ports = 4;
  f.ecmp = "pair";
  return topo::build_fat_tree(f);
}

TEST(CheckpointWrite, SlowServersSetTheTime) {
  // 2 servers at 10 GB/s each on the spines; 16 GPUs write 16 GB, 1 GB each, 8 GB to each
  // server: 8 GB / 10 GB/s = 0.8 s (each GPU's own path, 50 GB/s NICs, is not the limit:
  // 8 writers to one server share its 10 GB/s).
  topo::Topology job = fabric16();
  topo::Topology t = topo::with_storage(job, 2, BytesPerSecond(10e9), Seconds(0));
  ASSERT_EQ(t.gpu_count(), 18);
  sim::CheckpointWrite w = sim::simulate_checkpoint_write(t, gpu(), 16, Bytes(16e9));
  EXPECT_DOUBLE_EQ(w.per_gpu, 1e9);
  EXPECT_NEAR(w.time.value(), 0.8, 1e-6);
}

TEST(CheckpointWrite, TheFabricSetsTheTimeWhenTheServersAreFast) {
  // 4 servers at 1 TB/s each, one on each spine. A leaf's 4 GPUs send 1 GB each to servers
  // 0-3 (GPU r to server r mod 4), on the spines those servers hang off, so each of the
  // leaf's 4 uplinks (50 GB/s) carries one GPU's 1 GB: 1 GB / 50 GB/s = 20 ms. The GPUs'
  // NICs and PCIe (64 GB/s) are no narrower.
  topo::Topology job = fabric16();
  topo::Topology t = topo::with_storage(job, 4, BytesPerSecond(1e12), Seconds(0));
  sim::CheckpointWrite w = sim::simulate_checkpoint_write(t, gpu(), 16, Bytes(16e9));
  EXPECT_NEAR(w.time.value(), 0.02, 1e-6);
}

TEST(CheckpointWrite, ServersOnTheLeavesAreReachedWithoutASpine) {
  // storage_switches: leaf. Server i hangs off leaf i in turn (4 servers, 4 leaves): GPU 5
  // (node 1, leaf 1) reaches server 1 (rank 17) over its NIC and its leaf alone; GPU 0 (leaf
  // 0) crosses a spine to it.
  topo::Topology job = fabric16();
  topo::Topology t = topo::with_storage(job, 4, BytesPerSecond(10e9), Seconds(0), 1);
  std::vector<topo::Hop> hops;
  t.route(5, 17, hops);
  ASSERT_EQ(hops.size(), 3u);
  EXPECT_EQ(t.hop_name(hops.back()), "leaf1->gpu17");
  hops.clear();
  t.route(0, 17, hops);
  EXPECT_EQ(hops.size(), 5u);
  EXPECT_THROW(topo::with_storage(job, 4, BytesPerSecond(10e9), Seconds(0), 3),
               std::invalid_argument); // no cores on one pod
}

TEST(CheckpointWrite, RoutesToServersClimbThroughSwitchesOnly) {
  topo::Topology job = fabric16();
  topo::Topology t = topo::with_storage(job, 2, BytesPerSecond(10e9), Seconds(0));
  std::vector<topo::Hop> hops;
  t.route(5, 17, hops);
  // GPU -> NIC -> leaf -> spine -> server: 4 hops, the last the server's own link.
  ASSERT_EQ(hops.size(), 4u);
  EXPECT_EQ(t.hop_name(hops.back()), "spine1->gpu17");
  // The job's own pairs keep the job's routes.
  std::vector<topo::Hop> inside, before;
  t.route(0, 9, inside);
  job.route(0, 9, before);
  ASSERT_EQ(inside.size(), before.size());
  for (size_t i = 0; i < inside.size(); ++i) EXPECT_EQ(inside[i].link, before[i].link);
}

// A storage network of its own: 16 GPUs in 4 hosts of 4, each GPU on 64 GB/s to its host,
// each host's storage NICs on 10 GB/s into a non-blocking switch; no latency.
topo::StorageNetwork own_network(BytesPerSecond per_server) {
  topo::StorageNetwork n;
  n.gpus = 16;
  n.gpus_per_host = 4;
  n.gpu_link = BytesPerSecond(64e9);
  n.host_nics = BytesPerSecond(10e9);
  n.servers = 2;
  n.per_server = per_server;
  n.latency = Seconds(0);
  return n;
}

TEST(CheckpointWrite, OnItsOwnNetworkTheHostsNicsSetTheTime) {
  // 16 GB from 16 GPUs: a host's 4 GPUs send 4 x 1 GB over its 10 GB/s: 0.4 s. The servers
  // (1 TB/s each) take 8 GB each in 8 ms, and a GPU's 1 GB crosses its 64 GB/s link in 16 ms.
  topo::Topology t = topo::storage_network(own_network(BytesPerSecond(1e12)));
  ASSERT_EQ(t.gpu_count(), 18);
  EXPECT_EQ(t.link_count(), 16 + 4 + 2);
  EXPECT_NEAR(sim::simulate_checkpoint_write(t, gpu(), 16, Bytes(16e9)).time.value(), 0.4, 1e-6);
}

TEST(CheckpointWrite, OnItsOwnNetworkSlowServersSetTheTime) {
  // Servers at 1 GB/s: GPU r writes to server r mod 2, 8 GB each: 8 s, where the hosts'
  // NICs would take 0.4 s.
  topo::Topology t = topo::storage_network(own_network(BytesPerSecond(1e9)));
  EXPECT_NEAR(sim::simulate_checkpoint_write(t, gpu(), 16, Bytes(16e9)).time.value(), 8.0, 1e-6);
}

TEST(CheckpointWrite, OwnNetworkRoutesGoThroughTheHostAndTheSwitch) {
  topo::Topology t = topo::storage_network(own_network(BytesPerSecond(1e9)));
  auto names = [&](int src, int dst) {
    std::vector<topo::Hop> hops;
    t.route(src, dst, hops);
    std::vector<std::string> out;
    for (const topo::Hop& h : hops) out.push_back(t.hop_name(h));
    return out;
  };
  // GPU 5 is on host 1 (nic1, its storage NICs); server 1 is rank 17.
  EXPECT_EQ(names(5, 17), (std::vector<std::string>{"gpu5->nic1", "nic1->leaf0", "leaf0->gpu17"}));
  EXPECT_EQ(names(17, 5), (std::vector<std::string>{"gpu17->leaf0", "leaf0->nic1", "nic1->gpu5"}));
  EXPECT_EQ(names(4, 5), (std::vector<std::string>{"gpu4->nic1", "nic1->gpu5"}));
  EXPECT_EQ(names(0, 5),
            (std::vector<std::string>{"gpu0->nic0", "nic0->leaf0", "leaf0->nic1", "nic1->gpu5"}));
}

} // namespace
} // namespace trainsim
