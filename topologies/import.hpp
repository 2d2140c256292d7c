// Topologies imported from a file: GraphML, JSON or a CSV edge list (formats in
// docs/topologies.md). Vertex kinds come from a `kind` attribute or, failing that, from the
// name ("gpu3", "nvswitch0", "nic3", "leaf1", "spine0", "core0"; anything else is a switch).
// GPU ranks follow the number in "gpuN" names when they are exactly 0..N-1, otherwise the
// order of appearance. Every problem is an InputError naming the file and the line, edge or key.
//
// Routing is shortest path (fewest hops) with ECMP by flow hash among equal-cost paths. No
// all-pairs table: the router keeps BFS distances for the sources it was asked about, in an
// LRU cache bounded in memory (route_cache_mib). A hit costs O(sum of degrees along the path);
// a miss costs one BFS, O(V + E). Simulations that route from every
// GPU therefore pay O(GPUs x (V + E)) once when the cache holds every source, and more when it
// does not: fine for imported graphs of thousands of vertices, not meant for 100k-GPU ones
// (use a generator there, whose routers are closed-form).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "models/params.hpp"
#include "models/topology_spec.hpp"
#include "topologies/spec.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo {

enum class GraphFormat { graphml, json, csv };

// ImportParams is in models/topology_spec.hpp.

/// The `file` generator's keys (topologies/import_params.cpp): path, resolved against the
/// folder of the section's file; format, gpus_per_node, route_cache_mib. Rejects unknown keys
/// and a format that is none of graphml, json, csv.
ImportParams parse_import(const Params& section);
/// Every key with its value, in the order parse_import reads them; gpus_per_node only when given.
std::vector<TopologySetting> import_settings(const ImportParams& p);

/// The format `options.format` names, or for "auto" the path's extension says ("xml" is
/// GraphML). Throws InputError about `section`'s format key, or about the path without one.
GraphFormat graph_format(const ImportParams& options, const Params* section = nullptr);

/// Reads a graph from `in`; `file` names it in messages.
Topology read_topology(std::istream& in, GraphFormat format, const std::string& file,
                       const ImportParams& options = {});
/// Opens options.path and reads it.
Topology import_topology(const ImportParams& options);
/// The `file` generator's build: checks `options` (messages name "ImportParams"), then imports.
Topology build_imported(const ImportParams& options);

/// Checks that every GPU has a link and every vertex is reachable from GPU 0; throws
/// InputError(file, ...) naming the first offender by `names` (vertex id -> name in the file),
/// or by its kind and index where `names` has none.
void check_connected(const Graph& graph, const std::string& file,
                     const std::vector<std::string>& names = {});

} // namespace trainsim::topo
