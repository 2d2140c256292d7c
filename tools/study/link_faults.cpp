#include "tools/study/link_faults.hpp"

#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "models/error.hpp"
#include "tools/study/sprayed_failures.hpp"
#include "topologies/fat_tree.hpp"

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

std::vector<std::string> link_names(const topo::Topology& t) {
  std::vector<std::string> names;
  for (int id = 0; id < t.link_count(); ++id) names.push_back(ends_name(t, id));
  return names;
}

bool named(const topo::Topology& t, int id, const DegradedLinks& l) {
  switch (l.which) {
  case DegradedLinks::Which::nic:
    return nic_link(t, id, l.rank);
  case DegradedLinks::Which::link:
    return link_named(t, id, l.link);
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
    std::vector<std::string> names = link_names(t);
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

std::vector<std::string> switch_names(const topo::Topology& t) {
  std::vector<std::string> names;
  for (auto v : boost::make_iterator_range(boost::vertices(t.graph())))
    if (t.graph()[v].kind == topo::VertexKind::net_switch) names.push_back(t.vertex_name(v));
  return names;
}

// The links a failed part takes down: the named link, or every link of the named switch.
std::vector<int> failed_links(const Scenario& s, size_t i, const topo::Topology& t) {
  const FailedPart& part = s.faults.failed[i];
  bool link = part.which == FailedPart::Which::link;
  const topo::Graph& g = t.graph();
  std::vector<int> ids;
  if (link) {
    for (int id = 0; id < t.link_count(); ++id)
      if (link_named(t, id, part.name)) ids.push_back(id);
  } else {
    for (auto v : boost::make_iterator_range(boost::vertices(g)))
      if (g[v].kind == topo::VertexKind::net_switch && t.vertex_name(v) == part.name)
        for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) ids.push_back(g[e].id);
  }
  if (!ids.empty()) return ids;
  std::vector<std::string> names = link ? link_names(t) : switch_names(t);
  if (names.empty())
    throw InputError(s.file, failed_key(i, part), part.name,
                     "names a switch, and this fabric (" + s.system.topology.generator +
                         ") has no network switches");
  throw InputError(s.file, failed_key(i, part), part.name,
                   std::string("is not a ") + (link ? "link" : "network switch") +
                       " of this fabric (e.g. " + names.front() + ")" +
                       did_you_mean(part.name, names));
}

} // namespace

bool link_named(const topo::Topology& t, int id, const std::string& name) {
  auto [a, b] = t.link_ends(id);
  return name == t.vertex_name(a) + "-" + t.vertex_name(b) ||
         name == t.vertex_name(b) + "-" + t.vertex_name(a);
}

std::string failed_key(size_t i, const FailedPart& part) {
  return "faults.failed[" + std::to_string(i) + "]." +
         (part.which == FailedPart::Which::link ? "link" : "switch");
}

void apply_link_faults(const Scenario& s, topo::Topology& topology) {
  const std::vector<DegradedLinks>& all = s.faults.degraded_links;
  for (size_t i = 0; i < all.size(); ++i) {
    std::vector<int> ids;
    for (int id = 0; id < topology.link_count(); ++id)
      if (named(topology, id, all[i])) ids.push_back(id);
    if (ids.empty()) names_none(s, i, all[i], topology);
    for (int id : ids) topology.degrade_link(id, all[i].factor, all[i].extra_latency);
  }
  // Entry by entry, so that the refusal names the one that cuts the fabric.
  auto fail = [&](const std::vector<int>& ids, size_t i) {
    topology.fail_links(ids);
    if (auto cut = topology.cut_pair())
      throw InputError(s.file, failed_key(i, s.faults.failed[i]), s.faults.failed[i].name,
                       "cuts the fabric: no working path joins gpu" + std::to_string(cut->first) +
                           " and gpu" + std::to_string(cut->second) + " any more");
  };
  const auto* clos = std::get_if<topo::FatTreeParams>(&s.system.topology.params);
  std::optional<SprayedFailures> sprayed;
  for (size_t i = 0; i < s.faults.failed.size(); ++i) {
    if (clos != nullptr && topo::fat_tree_merged_part(*clos, s.faults.failed[i].name)) {
      if (!sprayed) sprayed.emplace(s, topology);
      sprayed->add(i);
      continue;
    }
    fail(failed_links(s, i, topology), i);
  }
  if (sprayed)
    for (auto [link, i] : sprayed->apply(topology)) fail({link}, i);
}

} // namespace trainsim
