// Writing a topology out: Graphviz DOT (for pictures), GraphML and JSON (both read back by
// topologies/import.hpp, so export -> import gives the same graph, ranks and link ids).
#pragma once

#include <iosfwd>
#include <string_view>

#include "topologies/topology.hpp"

namespace trainsim::topo {

/// `graph` with one node per vertex (named as Topology::vertex_name) and one edge per link,
/// coloured by tier, GPUs at the bottom; `dot -Tsvg` renders it.
void export_dot(const Topology& topology, std::ostream& out);
/// GraphML with keys kind, level (nodes), bandwidth in B/s, latency in s, tier (edges) and
/// gpus_per_node (graph).
void export_graphml(const Topology& topology, std::ostream& out);
/// {"gpus_per_node", "vertices": [{name, kind, level}], "links": [{a, b, bandwidth, latency,
/// tier}]}, numbers in SI units (B/s, s).
void export_json(const Topology& topology, std::ostream& out);

/// Dispatches on "dot", "graphml" or "json"; throws InputError naming `--format` otherwise.
void export_topology(const Topology& topology, std::string_view format, std::ostream& out);

} // namespace trainsim::topo
