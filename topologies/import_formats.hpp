// The three file formats of an imported topology (docs/topologies.md), each read into the same
// RawGraph: names, kinds and link figures as text, with where in the file each came from.
// import.cpp turns a RawGraph into a Topology. Internal to topologies/.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "topologies/import.hpp"

namespace trainsim::topo {

/// A graph as read, before ranks and ids are assigned. `where` says where in the file each
/// item came from, for messages ("line 4", "links[2]", "edge 'e7'").
struct RawVertex {
  std::string name;
  std::string kind; ///< empty = inferred from the name
  int level = -1;   ///< -1 = inferred
};
struct RawLink {
  std::string a, b;
  std::string bandwidth, latency, tier;
  std::string where;
};
struct RawGraph {
  std::vector<RawVertex> vertices;
  std::vector<RawLink> links;
  int gpus_per_node = 0;
};

/// Reads `in` in `format`; `file` names it in messages. Throws InputError naming the line,
/// item or key at fault.
RawGraph read_raw(std::istream& in, GraphFormat format, const std::string& file);

/// A whole number >= `least` as written in a file, or an InputError naming `where`.
int whole_number(const std::string& text, int least, const std::string& file,
                 const std::string& where);

} // namespace trainsim::topo
