// Collective algorithms, registered by name with a one-line description and chosen by the
// scenario. Each moves its real byte counts as SimGrid communications between the members'
// hosts, so link sharing and latency come from the simulated fabric.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/units.hpp"
#include "sim/stats.hpp"

namespace simgrid::s4u {
class Mailbox;
} // namespace simgrid::s4u

namespace trainsim::sim {

/// fine: every algorithm step is its own set of flows (the reference);
/// fast: steps that move data over the same path are merged into one flow per rank, with the
/// per-step latencies kept (docs/architecture.md, "Fidelity modes").
enum class Fidelity { fast, fine };

/// One rank's view of a group whose members are the ranks base + i * stride, i < size.
struct Group {
  int base = 0;
  int stride = 1;
  int size = 1;
  int me = 0; ///< this rank's index in the group
  /// Inboxes of this group's channel, indexed by rank (shared by all actors).
  const std::vector<simgrid::s4u::Mailbox*>* inboxes = nullptr;
  Seconds hop_latency; ///< path latency from this rank to member me + 1 (ring neighbour)

  [[nodiscard]] int member(int i) const { return base + ((i % size + size) % size) * stride; }
  [[nodiscard]] simgrid::s4u::Mailbox* inbox(int i) const { return (*inboxes)[static_cast<size_t>(member(i))]; }
};

class CollectiveAlgorithm {
public:
  virtual ~CollectiveAlgorithm() = default;
  /// Every member calls this with the same `bytes` (the full tensor size) and returns when
  /// its own part is done.
  virtual void all_reduce(const Group& group, Bytes bytes, Fidelity fidelity, Counters& counters) const = 0;
};

struct CollectiveInfo {
  std::string name;
  std::string description;
  std::unique_ptr<CollectiveAlgorithm> (*make)();
};

/// All algorithms, in a stable order.
const std::vector<CollectiveInfo>& collective_algorithms();
std::vector<std::string> collective_names();
/// The named algorithm; `name` must be one of collective_names().
std::unique_ptr<CollectiveAlgorithm> make_collective(const std::string& name);

} // namespace trainsim::sim
