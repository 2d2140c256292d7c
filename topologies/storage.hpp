// A storage tier added to a built fabric, for pricing a checkpoint's write over it
// (`trainsim goodput`, docs/faults.md). `nodes` storage servers, each on one link of its own
// to a switch of one tier of the fabric (spread over its switches in turn): by default its top
// tier, as storage servers hang off the spine or core of a training cluster's fabric, or the
// leaves, as storage racks on the leaves do. They are the vertices after the job's GPUs, with
// ranks gpus..gpus + nodes - 1, so a simulator runs them as hosts of their own. Or a storage
// network of its own, apart from the training fabric, as clusters keep storage traffic off the
// GPUs' fabric: storage_network().
#pragma once

#include "topologies/topology.hpp"

namespace trainsim::topo {

/// `job` with the storage tier on the switches of `level` (1 leaf, 2 spine, 3 core; 0 the
/// highest there is); `job` must outlive the result (the job's routes are its). A GPU's route
/// to a storage server is a shortest path through switches only. Throws std::invalid_argument
/// where the fabric has no network switch of that level to attach to.
Topology with_storage(const Topology& job, int nodes, BytesPerSecond per_node, Seconds latency,
                      int level = 0);

/// What a storage network of its own is built from: the job's GPUs in hosts, each host's
/// storage NICs together on one link into the network, and the servers each on a link of
/// their own. The network between them is non-blocking: those links are its only limits.
struct StorageNetwork {
  int gpus = 0;
  int gpus_per_host = 8;
  BytesPerSecond gpu_link;  ///< a GPU to its host's memory (PCIe), which the write crosses first
  BytesPerSecond host_nics; ///< a host's storage NICs together
  int servers = 1;
  BytesPerSecond per_server; ///< a server's own link
  Seconds latency;           ///< of every link
  /// Hosts of gpus_per_host GPUs, the last one partly filled.
  [[nodiscard]] int hosts() const { return (gpus + gpus_per_host - 1) / gpus_per_host; }
};

/// The storage network alone: vertices 0..gpus - 1 are the job's GPUs (ranks as in the job),
/// gpus..gpus + servers - 1 the servers, then the hosts and the one switch. Link r is GPU r's
/// to its host, then each host's to the switch, then each server's.
Topology storage_network(const StorageNetwork& n);

} // namespace trainsim::topo
