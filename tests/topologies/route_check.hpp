// Shared checks for routes: a route is a chain of links from the source GPU to the
// destination GPU; on Clos fabrics it climbs then descends (up/down).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "models/params.hpp"
#include "topologies/spec.hpp"
#include "topologies/topology.hpp"

namespace trainsim::topo::test {

inline Params params(std::map<std::string, std::string> values) {
  return Params("s.yaml", "system.topology", std::move(values));
}

/// The section `values` parsed, as the loader parses a scenario's.
inline TopologySpec spec(std::map<std::string, std::string> values) {
  return parse_topology(params(std::move(values)));
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

/// The vertices a route visits, starting at the source GPU.
inline std::vector<Vertex> visited(const Topology& t, int src, const std::vector<Hop>& hops) {
  std::vector<Vertex> path{t.gpu_vertex(src)};
  for (Hop h : hops) {
    auto [a, b] = t.link_ends(h.link);
    path.push_back(h.forward ? b : a);
  }
  return path;
}

/// "" when `hops` is a simple path from GPU src to GPU dst whose hops chain, else what is wrong.
inline std::string path_problem(const Topology& t, int src, int dst, const std::vector<Hop>& hops) {
  Vertex at = t.gpu_vertex(src);
  std::set<Vertex> seen{at};
  for (Hop h : hops) {
    if (h.link < 0 || h.link >= t.link_count()) return "bad link id " + std::to_string(h.link);
    auto [a, b] = t.link_ends(h.link);
    Vertex from = h.forward ? a : b, to = h.forward ? b : a;
    if (from != at) return "hop " + t.hop_name(h) + " does not start at " + t.vertex_name(at);
    if (!seen.insert(to).second) return "revisits " + t.vertex_name(to);
    at = to;
  }
  if (at != t.gpu_vertex(dst)) return "ends at " + t.vertex_name(at);
  return "";
}

/// Height in a Clos: GPUs 0, NVSwitches and NICs 1, switches 1 + level.
inline int height(const VertexProps& p) {
  if (p.kind == VertexKind::gpu) return 0;
  return p.kind == VertexKind::net_switch ? 1 + p.level : 1;
}

/// True when heights strictly rise to one peak, then strictly fall.
inline bool up_then_down(const Topology& t, const std::vector<Vertex>& path) {
  size_t i = 1;
  while (i < path.size() && height(t.graph()[path[i]]) > height(t.graph()[path[i - 1]])) ++i;
  while (i < path.size() && height(t.graph()[path[i]]) < height(t.graph()[path[i - 1]])) ++i;
  return i == path.size();
}

/// Routes every ordered pair (stride `step` over sources) and returns the first problem.
inline std::string check_all_routes(const Topology& t, bool clos, int step = 1) {
  std::vector<Hop> hops;
  for (int s = 0; s < t.gpu_count(); s += step)
    for (int d = 0; d < t.gpu_count(); ++d) {
      if (s == d) continue;
      hops.clear();
      t.route(s, d, hops);
      auto problem = path_problem(t, s, d, hops);
      if (problem.empty() && clos && !up_then_down(t, visited(t, s, hops))) problem = "not up/down";
      if (!problem.empty()) return std::to_string(s) + "->" + std::to_string(d) + ": " + problem;
    }
  return "";
}

} // namespace trainsim::topo::test
