#include "tools/study/link_faults.hpp"

#include <set>
#include <string>
#include <vector>

#include "models/error.hpp"

namespace trainsim {
namespace {

std::string ends_name(const topo::Topology& t, int id) {
  auto [a, b] = t.link_ends(id);
  return t.vertex_name(a) + "-" + t.vertex_name(b);
}

// A NIC's links towards the network: those of the NIC vertex of `rank` that leave it for a
// switch (one per plane where the fabric has several).
bool nic_link(const topo::Topology& t, int id, int rank) {
  const topo::Graph& g = t.graph();
  auto [a, b] = t.link_ends(id);
  auto is_nic = [&](topo::Vertex v) {
    return g[v].kind == topo::VertexKind::nic && g[v].index == rank;
  };
  auto is_switch = [&](topo::Vertex v) { return g[v].kind == topo::VertexKind::net_switch; };
  return (is_nic(a) && is_switch(b)) || (is_nic(b) && is_switch(a));
}

bool named(const topo::Topology& t, int id, const DegradedLinks& l) {
  switch (l.which) {
  case DegradedLinks::Which::nic:
    return nic_link(t, id, l.rank);
  case DegradedLinks::Which::link: {
    auto [a, b] = t.link_ends(id);
    return l.link == t.vertex_name(a) + "-" + t.vertex_name(b) ||
           l.link == t.vertex_name(b) + "-" + t.vertex_name(a);
  }
  case DegradedLinks::Which::tier:
    break;
  }
  return to_string(t.link(id).tier) == l.tier;
}

[[noreturn]] void names_none(const Scenario& s, size_t i, const DegradedLinks& l,
                             const topo::Topology& t) {
  std::string at = "faults.degraded_links[" + std::to_string(i) + "].";
  switch (l.which) {
  case DegradedLinks::Which::nic:
    throw InputError(s.file, at + "nic", std::to_string(l.rank),
                     "has no NIC link to a switch on this fabric (" +
                         s.system.topology.generator + ")");
  case DegradedLinks::Which::link: {
    std::vector<std::string> names;
    for (int id = 0; id < t.link_count(); ++id) names.push_back(ends_name(t, id));
    throw InputError(s.file, at + "link", l.link,
                     "is not a link of this fabric (its ends' names, e.g. " + names.front() +
                         ")" + did_you_mean(l.link, names));
  }
  case DegradedLinks::Which::tier:
    break;
  }
  std::set<std::string> tiers;
  for (int id = 0; id < t.link_count(); ++id) tiers.insert(to_string(t.link(id).tier));
  throw InputError(s.file, at + "tier", l.tier,
                   "is not a tier of this fabric" +
                       did_you_mean(l.tier, std::vector<std::string>(tiers.begin(), tiers.end())));
}

} // namespace

void apply_link_faults(const Scenario& s, topo::Topology& topology) {
  const std::vector<DegradedLinks>& all = s.faults.degraded_links;
  for (size_t i = 0; i < all.size(); ++i) {
    std::vector<int> ids;
    for (int id = 0; id < topology.link_count(); ++id)
      if (named(topology, id, all[i])) ids.push_back(id);
    if (ids.empty()) names_none(s, i, all[i], topology);
    for (int id : ids) topology.degrade_link(id, all[i].factor, all[i].extra_latency);
  }
}

} // namespace trainsim
