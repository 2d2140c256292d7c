#include "sim/collectives.hpp"

#include <cassert>
#include <cmath>

#include <simgrid/s4u.hpp>

#include "topologies/topology.hpp"

namespace trainsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

// Payloads carry no data: a comm models its bytes, not their content.
int g_payload = 0;

sg4::Mailbox* inbox(const Group& g, int member, const CollectiveEnv& env) {
  return env.mailboxes->channel(g.channel)[static_cast<size_t>(g.member(member))];
}

/// Sends `bytes` to member me + 1 and receives as much from member me - 1.
void ring_exchange(const Group& g, double bytes, const CollectiveEnv& env) {
  int* received = nullptr;
  auto size = static_cast<uint64_t>(std::llround(bytes));
  sg4::CommPtr send = inbox(g, g.me + 1, env)->put_async(&g_payload, size);
  sg4::CommPtr recv = inbox(g, g.me, env)->get_async<int>(&received);
  recv->wait();
  send->wait();
  env.counters->comms += 1;
}

/// `steps` rounds in which every rank passes `chunk` bytes to the next one. Fast mode sends
/// the rounds' bytes as one flow and pays the other rounds' latency as a wait.
void ring_rounds(const Group& g, int steps, double chunk, const CollectiveEnv& env) {
  if (env.fidelity == Fidelity::fine) {
    for (int s = 0; s < steps; ++s) ring_exchange(g, chunk, env);
    return;
  }
  sg4::this_actor::sleep_for(g.hop_latency.value() * (steps - 1));
  ring_exchange(g, chunk * steps, env);
}

// Ring: reduce-scatter and all-gather each take p-1 rounds of n/p bytes; an all-reduce is
// both, 2(p-1) rounds.
class Ring final : public CollectiveAlgorithm {
public:
  void run(CollectiveOp op, const Group& g, Bytes bytes, const CollectiveEnv& env) const override {
    if (g.size < 2) return;
    int rounds = op == CollectiveOp::all_reduce ? 2 * (g.size - 1) : g.size - 1;
    ring_rounds(g, rounds, bytes.value() / g.size, env);
  }
  [[nodiscard]] bool supports(CollectiveOp op) const override { return op != CollectiveOp::all_to_all; }
};

} // namespace

std::string to_string(CollectiveOp op) {
  switch (op) {
  case CollectiveOp::all_reduce: return "all-reduce";
  case CollectiveOp::reduce_scatter: return "reduce-scatter";
  case CollectiveOp::all_gather: return "all-gather";
  case CollectiveOp::all_to_all: return "all-to-all";
  }
  return "?";
}

const std::vector<sg4::Mailbox*>& Mailboxes::channel(std::string_view name) {
  for (const auto& [n, boxes] : channels_)
    if (n == name) return boxes;
  std::vector<sg4::Mailbox*> boxes;
  boxes.reserve(static_cast<size_t>(ranks_));
  std::string suffix = "." + std::string(name);
  for (int r = 0; r < ranks_; ++r) boxes.push_back(sg4::Mailbox::by_name(std::to_string(r) + suffix));
  channels_.emplace_back(std::string(name), std::move(boxes));
  return channels_.back().second;
}

Group make_group(int base, int stride, int size, int me, std::string channel, const topo::Topology& topology) {
  Group g{base, stride, size, me, std::move(channel), Seconds()};
  if (size > 1) g.hop_latency = topology.path_latency(g.member(me), g.member(me + 1));
  return g;
}

Group Group::block(int block_size, const std::string& suffix, const topo::Topology& topology) const {
  int first = me - me % block_size;
  return make_group(member(first), stride, block_size, me % block_size, channel + "." + suffix, topology);
}

Group Group::across_blocks(int block_size, const std::string& suffix, const topo::Topology& topology) const {
  return make_group(member(me % block_size), stride * block_size, size / block_size, me / block_size,
                    channel + "." + suffix, topology);
}

const std::vector<CollectiveInfo>& collective_algorithms() {
  static const std::vector<CollectiveInfo> all{
      {"ring", "ring: reduce-scatter and all-gather in p-1 steps of n/p bytes to the next rank each",
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
