#include "sim/replica_bundle.hpp"

#include <string>
#include <variant>

#include "models/error.hpp"
#include "sim/simulation.hpp"
#include "topologies/fat_tree.hpp"

namespace trainsim::sim {
namespace {

// Replica 0's image of `rank`: the rank at the same TP place and stage with weight replica 0.
int image_in_replica0(const Layout& layout, int rank) {
  Coords c = layout.coords(rank);
  c.dp = 0;
  return layout.rank(c);
}

[[noreturn]] void refuse(const std::string& why) {
  throw Error(ExitCode::input, "--bundle-replicas: " + why);
}

// What makes one replica stand for all: every other replica's flows cross only its own nodes'
// links and links at least as wide as the nodes under them (a non-blocking fabric whose
// switches spread each flow over every uplink), and each DP ring's next replica has an image
// on another node of the sender's own replica, at the same place in a block whose members run
// in step (a TP block spanning whole nodes, at least two).
void check_bundleable(const Scenario& s, const topo::Topology& topology, const SimOptions& o) {
  const ExecutionSpec& e = s.execution;
  if (o.fidelity != Fidelity::fast) refuse("fast mode only (fine mode runs every replica)");
  if (s.faults.links())
    refuse("needs a fabric whose replicas' links are alike; a degraded link makes one differ");
  if (e.cp > 1 || e.ep > 1)
    refuse("needs cp 1 and ep 1 (here cp " + std::to_string(e.cp) + ", ep " + std::to_string(e.ep) +
           "): their groups span the replicas");
  if (e.experts_fold())
    refuse("needs experts split as TP is (here etp " + std::to_string(e.expert_tp()) + ", tp " +
           std::to_string(e.tp) + "): folded expert groups span the replicas");
  if (e.dp_collective != "ring")
    refuse("needs dp_collective: ring (here " + e.dp_collective +
           "): a bundled group keeps only the ring's neighbours");
  int g = topology.gpus_per_node();
  if (g < 1 || e.tp_ranks() % g != 0 || e.tp_ranks() / g < 2)
    refuse("needs a TP block of whole nodes, at least two (here tp x tp_2d = " +
           std::to_string(e.tp_ranks()) + " on nodes of " + std::to_string(g) +
           " GPUs): a DP ring's next replica maps onto the next node of the block");
  const auto* clos = std::get_if<topo::FatTreeParams>(&s.system.topology.params);
  if (clos == nullptr || !topo::fat_tree_sprays(*clos) || clos->oversubscription > 1.0)
    refuse("needs a non-blocking fat tree with ecmp: spray, where no link beyond a node's own "
           "is tighter than its NICs");
}

} // namespace

int replica_bundle(const Scenario& s, const topo::Topology& topology, const SimOptions& o) {
  if (!o.bundle_replicas || s.execution.weight_replicas() < 2) return 1;
  check_bundleable(s, topology, o);
  return s.execution.weight_replicas();
}

int bundle_partner(const ExecutionSpec& e, int rank, int gpus_per_node) {
  int block = e.tp_ranks();
  return rank - rank % block + (rank % block + gpus_per_node) % block;
}

std::vector<bool> traced_in_replica0(const Layout& layout, const std::vector<bool>& traced) {
  std::vector<bool> images(traced.size(), false);
  for (size_t r = 0; r < traced.size(); ++r)
    if (traced[r])
      images[static_cast<size_t>(image_in_replica0(layout, static_cast<int>(r)))] = true;
  return images;
}

void mirror_replicas(const Layout& layout, const std::vector<bool>& traced, SimResult& result) {
  for (size_t r = 0; r < result.ranks.size(); ++r) {
    auto image = static_cast<size_t>(image_in_replica0(layout, static_cast<int>(r)));
    if (image != r) result.ranks[r] = result.ranks[image];
  }
  std::vector<TraceEvent> events;
  int replicas = layout.ranks_per_stage() / layout.tp_block();
  for (const TraceEvent& e : result.trace) {
    Coords c = layout.coords(e.rank);
    for (c.dp = 0; c.dp < replicas; ++c.dp) {
      int rank = layout.rank(c);
      if (!traced[static_cast<size_t>(rank)]) continue;
      TraceEvent image = e;
      image.rank = rank;
      events.push_back(image);
    }
  }
  result.trace = std::move(events);
}

} // namespace trainsim::sim
