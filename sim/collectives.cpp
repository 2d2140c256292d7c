#include "sim/collectives.hpp"

#include <cassert>
#include <cmath>

#include <simgrid/s4u.hpp>

namespace trainsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

// Payloads carry no data: a comm models its bytes, not their content.
int g_payload = 0;

/// Sends `bytes` to the next member and receives as much from the previous one.
void ring_exchange(const Group& g, double bytes, Counters& counters) {
  int* received = nullptr;
  sg4::CommPtr send = g.inbox(g.me + 1)->put_async(&g_payload, static_cast<uint64_t>(std::llround(bytes)));
  sg4::CommPtr recv = g.inbox(g.me)->get_async<int>(&received);
  recv->wait();
  send->wait();
  counters.comms += 1;
}

// Ring all-reduce: reduce-scatter then all-gather, 2(p-1) steps each moving bytes/p per rank.
class Ring final : public CollectiveAlgorithm {
public:
  void all_reduce(const Group& g, Bytes bytes, Fidelity fidelity, Counters& counters) const override {
    if (g.size < 2) return;
    int steps = 2 * (g.size - 1);
    double chunk = bytes.value() / g.size;
    if (fidelity == Fidelity::fine) {
      for (int s = 0; s < steps; ++s) ring_exchange(g, chunk, counters);
      return;
    }
    // Pipelined form: the same bytes in one flow; the flow pays one path latency, the
    // other steps' latencies are paid here.
    sg4::this_actor::sleep_for(g.hop_latency.value() * (steps - 1));
    ring_exchange(g, chunk * steps, counters);
  }
};

} // namespace

const std::vector<CollectiveInfo>& collective_algorithms() {
  static const std::vector<CollectiveInfo> all{
      {"ring", "ring all-reduce: reduce-scatter + all-gather, 2(p-1) steps of n/p bytes to the next rank",
       [] { return std::unique_ptr<CollectiveAlgorithm>(std::make_unique<Ring>()); }},
  };
  return all;
}

std::vector<std::string> collective_names() {
  std::vector<std::string> names;
  for (const auto& info : collective_algorithms()) names.push_back(info.name);
  return names;
}

std::unique_ptr<CollectiveAlgorithm> make_collective(const std::string& name) {
  for (const auto& info : collective_algorithms())
    if (info.name == name) return info.make();
  assert(false && "collective names are validated when the scenario is loaded");
  return nullptr;
}

} // namespace trainsim::sim
