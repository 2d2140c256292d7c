#include "sim/collectives.hpp"

#include <algorithm>

#include <simgrid/s4u.hpp>

#include "models/check.hpp"
#include "sim/collective_steps.hpp"
#include "topologies/topology.hpp"

namespace trainsim::sim {

namespace sg4 = simgrid::s4u;

std::string to_string(CollectiveOp op) {
  switch (op) {
  case CollectiveOp::all_reduce: return "all-reduce";
  case CollectiveOp::reduce_scatter: return "reduce-scatter";
  case CollectiveOp::all_gather: return "all-gather";
  case CollectiveOp::all_to_all: return "all-to-all";
  }
  return "?";
}

sg4::Mailbox* Channel::operator[](size_t rank) const {
  sg4::Mailbox*& box = boxes_[rank];
  if (box == nullptr) box = sg4::Mailbox::by_name(std::to_string(rank) + "." + name_);
  return box;
}

const Channel& Mailboxes::channel(std::string_view name) {
  for (const Channel& c : channels_)
    if (c.name() == name) return c;
  return channels_.emplace_back(std::string(name), ranks_);
}

const RingCost& GroupPaths::ring(const GroupSpan& span) {
  auto key = std::tuple(span.base, span.stride, span.size);
  auto it = rings_.find(key);
  if (it == rings_.end()) it = rings_.emplace(key, ring_cost(span, pairs_)).first;
  return it->second;
}

Group make_group(int base, int stride, int size, int me, std::string channel, const topo::Topology& topology) {
  Group g{base, stride, size, me, std::move(channel), Seconds()};
  if (size > 1) g.hop_latency = topology.path_latency(g.member(me), g.member(me + 1));
  return g;
}

const std::vector<CollectiveInfo>& collective_algorithms() {
  static const std::vector<CollectiveInfo> all{
      {"ring", "ring: reduce-scatter and all-gather in p-1 steps of n/p bytes to the next rank each",
       detail::make_ring},
      {"tree", "double binary tree (all-reduce only): halves reduced up and broadcast down two trees, pipelined",
       detail::make_tree},
      {"hierarchical", "ring reduce-scatter in each node, ring all-reduce across nodes, all-gather in each node; "
                       "a plain ring within one node or with one member per node",
       detail::make_hierarchical},
      {"pairwise", "all-to-all only: p-1 rounds, round k sends n/p to member me+k and receives from me-k",
       detail::make_pairwise},
  };
  return all;
}

std::string default_collective(CollectiveOp op) { return op == CollectiveOp::all_to_all ? "pairwise" : "ring"; }

std::vector<std::string> collective_names() {
  std::vector<std::string> names;
  for (const auto& info : collective_algorithms()) names.push_back(info.name);
  return names;
}

std::unique_ptr<CollectiveAlgorithm> make_collective(const std::string& name) {
  const auto& all = collective_algorithms();
  auto info = std::find_if(all.begin(), all.end(), [&](const CollectiveInfo& c) { return c.name == name; });
  TRAINSIM_CHECK(info != all.end(), "no collective algorithm '" + name + "': the loader validates names");
  return info->make();
}

} // namespace trainsim::sim
