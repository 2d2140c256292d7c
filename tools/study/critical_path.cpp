#include "tools/study/critical_path.hpp"

#include <algorithm>
#include <map>

#include "tools/study/largest.hpp"

namespace trainsim {
namespace {

// The `top` entries of `by` with the largest times (keep_largest).
template <class Key>
std::vector<std::pair<Key, Seconds>> largest(const std::map<Key, Seconds>& by, size_t top) {
  std::vector<std::pair<Key, Seconds>> out(by.begin(), by.end());
  keep_largest(out, top);
  return out;
}

} // namespace

const char* via_name(sim::PathStep::Via via) {
  switch (via) {
  case sim::PathStep::Via::start: return "start";
  case sim::PathStep::Via::pp: return "pp";
  case sim::PathStep::Via::tp: return "tp";
  case sim::PathStep::Via::dp: return "dp";
  case sim::PathStep::Via::ep: return "ep";
  case sim::PathStep::Via::cp: return "cp";
  case sim::PathStep::Via::stream: return "stream";
  }
  return "?";
}

CriticalPath summarize_critical_path(const std::vector<sim::PathStep>& steps,
                                     const topo::Topology& topology,
                                     const std::vector<double>& slowdowns, size_t top) {
  CriticalPath out;
  if (steps.empty()) return out;
  out.slow_gpus = !slowdowns.empty();
  out.steps = steps;
  out.first_rank = steps.front().rank;
  out.last_rank = steps.back().rank;
  std::map<int, Seconds> on_rank;
  std::map<std::string, CriticalPath::HandOvers> by_via;
  std::map<int, Seconds> on_channel;
  std::vector<topo::Hop> hops;
  for (const sim::PathStep& s : steps) {
    on_rank[s.rank] += Seconds(s.end - s.start);
    if (s.from_rank < 0) continue;
    Seconds transfer(s.start - s.handed);
    CriticalPath::HandOvers& h = by_via[via_name(s.via)];
    h.via = via_name(s.via);
    h.count += 1;
    h.transfer += transfer;
    if (s.alone >= 0) h.contention += Seconds(std::max(0.0, transfer.value() - s.alone));
    if (s.from_rank == s.rank) continue;
    hops.clear();
    if (s.reverse)
      topology.route(s.rank, s.from_rank, hops);
    else
      topology.route(s.from_rank, s.rank, hops);
    for (const topo::Hop& hop : hops) on_channel[hop.channel()] += transfer;
  }
  out.ranks = static_cast<int>(on_rank.size());
  out.longest_on = largest(on_rank, top);
  std::map<int, Seconds> on_slow;
  for (const auto& [rank, time] : on_rank)
    if (static_cast<size_t>(rank) < slowdowns.size() && slowdowns[static_cast<size_t>(rank)] > 1)
      on_slow[rank] = time;
  out.slow_on = largest(on_slow, top);
  for (auto& [via, h] : by_via) out.hand_overs.push_back(h);
  std::stable_sort(out.hand_overs.begin(), out.hand_overs.end(),
                   [](const auto& a, const auto& b) { return a.transfer > b.transfer; });
  for (const auto& [channel, time] : largest(on_channel, top))
    out.links.emplace_back(topology.hop_name({channel / 2, channel % 2 == 0}), time);
  return out;
}

} // namespace trainsim
