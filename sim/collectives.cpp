#include "sim/collectives.hpp"

#include <algorithm>

#include <simgrid/s4u.hpp>

#include "models/check.hpp"
#include "sim/collective_steps.hpp"
#include "topologies/topology.hpp"

namespace trainsim::sim {

namespace sg4 = simgrid::s4u;

sg4::Mailbox* Channel::operator[](size_t rank) const {
  sg4::Mailbox*& box = boxes_[rank];
  if (box == nullptr) box = sg4::Mailbox::by_name(std::to_string(rank) + "." + name_);
  return box;
}

sg4::Barrier& Channel::barrier(const GroupSpan& span) const {
  auto key = std::tuple(span.base, span.stride, span.size, span.ring_block);
  auto it = barriers_.find(key);
  if (it == barriers_.end())
    it = barriers_.emplace(key, sg4::Barrier::create(static_cast<unsigned>(span.size))).first;
  return *it->second;
}

const Channel& Channel::lane(int c) const {
  if (c == 0) return *this;
  while (static_cast<int>(lanes_.size()) < c)
    lanes_.push_back(std::make_unique<Channel>(name_ + "#" + std::to_string(lanes_.size() + 1),
                                               static_cast<int>(boxes_.size())));
  return *lanes_[static_cast<size_t>(c - 1)];
}

const Channel& Mailboxes::channel(std::string_view name) {
  for (const Channel& c : channels_)
    if (c.name() == name) return c;
  return channels_.emplace_back(std::string(name), ranks_);
}

const RingCost& GroupPaths::ring(const GroupSpan& span) {
  auto key = std::tuple(span.base, span.stride, span.size, span.ring_block);
  auto it = rings_.find(key);
  if (it == rings_.end()) it = rings_.emplace(key, ring_cost(span, pairs_)).first;
  return it->second;
}

Group make_group(int base, int stride, int size, int me, std::string channel,
                 const topo::Topology& topology) {
  Group g{base, stride, size, me, std::move(channel), Seconds()};
  g.ring_block = node_block(g.span(), topology.gpus_per_node());
  if (size > 1) g.hop_latency = topology.path_latency(g.rank(), g.ring_next());
  return g;
}

// Each name of the catalogue, bound to its implementation.
std::unique_ptr<CollectiveAlgorithm> make_collective(const std::string& name) {
  struct Binding {
    const char* name;
    std::unique_ptr<CollectiveAlgorithm> (*make)();
  };
  static constexpr Binding bindings[] = {{"ring", detail::make_ring},
                                         {"tree", detail::make_tree},
                                         {"hierarchical", detail::make_hierarchical},
                                         {"auto", detail::make_auto},
                                         {"pat", detail::make_pat},
                                         {"pairwise", detail::make_pairwise},
                                         {"direct", detail::make_direct},
                                         {"deepep", detail::make_deepep}};
  for (const Binding& b : bindings)
    if (b.name == name) return b.make();
  TRAINSIM_CHECK(false, "no collective algorithm '" + name + "': the loader validates names");
}

} // namespace trainsim::sim
