#include "sim/traffic.hpp"

#include <algorithm>

#include "sim/rail_bundle.hpp"

namespace trainsim::sim {

void Traffic::add(int from, int to, double bytes) {
  auto& peers = sent_[static_cast<size_t>(from)];
  auto it = std::find_if(peers.begin(), peers.end(), [to](const auto& p) { return p.first == to; });
  if (it == peers.end())
    peers.emplace_back(to, bytes);
  else
    it->second += bytes;
}

void Traffic::mirror_rails(const RailBundle& bundle) {
  int rails = bundle.rails;
  auto turn = [rails](int rank, int k) { return rank - rank % rails + (rank % rails + k) % rails; };
  for (size_t r = 0; r < sent_.size(); ++r) {
    int leader = static_cast<int>(r);
    if (!bundle.leads(leader)) continue;
    for (int k = 1; k < rails; ++k) {
      int rank = turn(leader, k);
      if (bundle.runs_own(rank)) continue;
      for (const auto& [to, bytes] : sent_[r]) add(rank, turn(to, k), bytes);
    }
  }
}

std::vector<double> Traffic::channel_bytes(const topo::Topology& topology) const {
  std::vector<double> bytes(2 * static_cast<size_t>(topology.link_count()), 0.0);
  std::vector<topo::Hop> hops;
  for (size_t from = 0; from < sent_.size(); ++from)
    for (const auto& [to, sent] : sent_[from]) {
      hops.clear();
      topology.route(static_cast<int>(from), to, hops);
      for (topo::Hop h : hops) bytes[static_cast<size_t>(h.channel())] += sent;
    }
  return bytes;
}

} // namespace trainsim::sim
