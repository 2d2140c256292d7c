#include "tools/study/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/error.hpp"
#include "models/params.hpp"
#include "models/workload.hpp"
#include "sim/checkpoint_write.hpp"
#include "topologies/storage.hpp"

namespace trainsim {
namespace {

// The GPU's link to host memory (the host tier's, PCIe), which an asynchronous checkpoint's
// copy crosses; 0 where the fabric has none (a torus, an imported graph without hosts).
BytesPerSecond host_link(const topo::Topology& t) {
  const topo::Graph& g = t.graph();
  for (auto e : boost::make_iterator_range(boost::out_edges(t.gpu_vertex(0), g)))
    if (g[e].tier == topo::Tier::host) return t.link(g[e].id).bandwidth;
  return BytesPerSecond(0);
}

// A storage server's link answers as the fabric's own network links do.
Seconds network_latency(const topo::Topology& t) {
  for (int id = 0; id < t.link_count(); ++id)
    if (t.link(id).tier == topo::Tier::leaf) return t.link(id).latency;
  return Seconds(1e-6);
}

bool network_link(topo::Tier tier) {
  using T = topo::Tier;
  return tier == T::leaf || tier == T::spine || tier == T::core || tier == T::direct ||
         tier == T::global;
}

// `storage_switches` as the scenario gives it.
const char* storage_tier(const ReliabilitySpec& r) {
  return kStorageTiers[static_cast<size_t>(r.storage_level)];
}

// The servers on a tier of the training fabric, where its links carry the write too.
topo::Topology on_the_fabric(const LoadedScenario& loaded, const ReliabilitySpec& r) {
  const Scenario& s = loaded.scenario;
  try {
    return topo::with_storage(loaded.topology, r.storage_nodes,
                              r.storage_bandwidth * (1.0 / r.storage_nodes),
                              network_latency(loaded.topology), r.storage_level);
  } catch (const std::invalid_argument& e) {
    if (r.storage_level > 0)
      throw InputError(s.file, "reliability.storage_switches", storage_tier(r),
                       std::string("cannot be placed: ") + e.what());
    throw InputError(s.file, "reliability.storage_nodes", std::to_string(r.storage_nodes),
                     std::string("cannot be placed: ") + e.what());
  }
}

// The servers on a network of their own: each host's storage NICs and the servers' links are
// its only limits, and a GPU's share reaches its host's memory over its host link (PCIe) first.
topo::Topology own_network(const LoadedScenario& loaded, const ReliabilitySpec& r) {
  const Scenario& s = loaded.scenario;
  if (r.storage_level > 0)
    throw InputError(s.file, "reliability.storage_switches", storage_tier(r),
                     "places the storage servers on the training fabric, and storage_network "
                     "gives them a network of their own: give one of the two");
  BytesPerSecond gpu_link = host_link(loaded.topology);
  topo::StorageNetwork n;
  n.gpus = s.execution.gpus();
  n.gpus_per_host = r.gpus_per_host;
  n.gpu_link = gpu_link.value() > 0 ? gpu_link : s.system.gpu.host_memory_bandwidth;
  n.host_nics = r.storage_network;
  n.servers = r.storage_nodes;
  n.per_server = r.storage_bandwidth * (1.0 / r.storage_nodes);
  n.latency = network_latency(loaded.topology);
  return topo::storage_network(n);
}

topo::Topology storage_topology(const LoadedScenario& loaded, const ReliabilitySpec& r) {
  return r.storage_network > BytesPerSecond() ? own_network(loaded, r) : on_the_fabric(loaded, r);
}

} // namespace

CheckpointPrice price_checkpoint(const LoadedScenario& loaded, const ReliabilitySpec& r) {
  const Scenario& s = loaded.scenario;
  CheckpointPrice c;
  double word = layer_shape(s.model).bytes_per_word.value();
  c.whole = Bytes(model_parameters(s.model).total *
                  (word + s.execution.optimizer_bytes_per_param.value()));
  for (const MemoryUse& m : memory_per_stage(s.model, s.execution, s.system.gpu))
    c.per_gpu = std::max(c.per_gpu, m.weights + m.optimizer);
  if (r.storage_capacity > Bytes() && c.whole > r.storage_capacity)
    throw InputError(s.file, "reliability.storage_capacity", format(r.storage_capacity),
                     "is less than one checkpoint of this model (" + format(c.whole) +
                         " of weights and optimizer state)");
  BytesPerSecond host = host_link(loaded.topology);
  if (r.async && host.value() <= 0)
    throw InputError(s.file, "reliability.async", "true",
                     "copies each GPU's state to host memory, and this fabric (" +
                         s.system.topology.generator + ") has no host link");
  c.host_copy = host.value() > 0 ? Seconds(c.per_gpu.value() / host.value()) : Seconds();
  topo::Topology storage = storage_topology(loaded, r);
  c.write = sim::simulate_checkpoint_write(storage, s.system.gpu, s.execution.gpus(), c.whole).time;
  c.stop = r.async ? c.host_copy : c.write;
  return c;
}

Exposure job_exposure(const LoadedScenario& loaded, const ReliabilitySpec& r) {
  const topo::Topology& t = loaded.topology;
  const topo::Graph& g = t.graph();
  auto gpus = static_cast<double>(loaded.scenario.execution.gpus());
  double nics = 0, switches = 0, cables = 0;
  for (auto v : boost::make_iterator_range(boost::vertices(g))) {
    nics += g[v].kind == topo::VertexKind::nic ? 1 : 0;
    switches += g[v].kind == topo::VertexKind::net_switch ? 1 : 0;
  }
  for (int id = 0; id < t.link_count(); ++id) cables += network_link(t.link(id).tier) ? 1 : 0;
  Exposure e;
  auto set = [&](Component c, double units) { e.units[static_cast<size_t>(c)] = units; };
  set(Component::gpu, gpus);
  set(Component::hbm, gpus);
  set(Component::host, std::ceil(gpus / r.gpus_per_host));
  set(Component::nic, nics > 0 ? nics : gpus);
  set(Component::network, gpus);
  set(Component::software, gpus);
  set(Component::network_switch, switches);
  set(Component::cable, cables);
  return e;
}

} // namespace trainsim
