// A failed spine, core or spine cable of a sprayed Clos (ecmp: spray). Such a fabric builds a
// pod's spines as one switch and a leaf's uplinks (a pod's core links) as one link each, as
// packet spraying's fluid limit sees them: every flow spread evenly over the equal-cost
// paths. One spine failing then leaves the flows spread over the others: each merged link it
// stood in loses the share of its cables that went through it, which is a degraded link. A
// merged link that loses all of its cables fails.
//
// Parts are named as a fabric that builds every cable names them (ecmp: pair): spine N is
// spine N % up of pod N / up (up: floor(leaf_down_ports / oversubscription), the spines per
// pod), core M is core M % (radix / 2) of plane M / (radix / 2).
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/scenario.hpp"
#include "topologies/topology.hpp"

namespace trainsim {

class SprayedFailures {
public:
  SprayedFailures(const Scenario& s, const topo::Topology& t);

  /// Notes the cables entry `i` of s.faults.failed takes down (a merged part: see
  /// topo::fat_tree_merged_part); throws InputError naming the entry where it names no spine,
  /// core or cable of this fabric.
  void add(size_t i);

  /// Degrades each merged link by the share of its cables lost; returns those that lost all,
  /// with the entry that took their last cable.
  std::vector<std::pair<int, size_t>> apply(topo::Topology& t) const;

private:
  int merged_link(const std::string& a, const std::string& b) const;
  void lose(int link, int cable, size_t entry);

  const Scenario& s_;
  const topo::Topology& t_;
  int up_ = 0, cores_per_plane_ = 0, pods_ = 0;
  std::set<std::pair<int, int>> lost_; ///< (merged link, physical cable)
  std::map<int, size_t> last_entry_;   ///< by merged link: the entry that last took one
};

} // namespace trainsim
