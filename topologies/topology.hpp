// The cluster as an explicit graph. Vertices are GPUs, NVSwitches, NICs and network
// switches; undirected edges are full-duplex links with a bandwidth per direction and a
// latency. A Topology owns the graph and its routing; nothing here depends on SimGrid
// (sim/platform turns a Topology into a SimGrid platform, one SimGrid link per direction).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "models/units.hpp"

namespace trainsim::topo {

enum class VertexKind : std::uint8_t { gpu, nvswitch, nic, net_switch };

/// Which part of the fabric a link belongs to; used for per-tier statistics and reports.
enum class Tier : std::uint8_t {
  nvlink, ///< GPU <-> NVSwitch, or GPU <-> GPU inside an NVLink domain
  host,   ///< GPU <-> its NIC (PCIe)
  leaf,   ///< NIC <-> leaf switch
  spine,  ///< leaf <-> spine
  core,   ///< spine <-> core
  direct, ///< direct GPU <-> GPU network links (torus)
  global, ///< dragonfly global links
};
std::string to_string(Tier tier);
std::string to_string(VertexKind kind);

struct VertexProps {
  VertexKind kind = VertexKind::gpu;
  int level = 0; ///< switch level (1 = leaf, 2 = spine, 3 = core); 0 for GPUs, NICs, NVSwitches
  int index = 0; ///< index among vertices of the same kind (GPU rank for GPUs)
};

struct LinkProps {
  BytesPerSecond bandwidth; ///< per direction
  Seconds latency;
  Tier tier = Tier::nvlink;
  int id = 0; ///< dense index 0..link_count()-1
};

using Graph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, LinkProps>;
using Vertex = Graph::vertex_descriptor;

/// One traversal of a link. The directed channel `2 * link + (forward ? 0 : 1)` is what the
/// simulator turns into one SimGrid link: the two directions of a full-duplex link never share
/// bandwidth. `forward` means from the link's lower vertex id to its higher one.
struct Hop {
  int link = 0;
  bool forward = true;
  [[nodiscard]] int channel() const { return 2 * link + (forward ? 0 : 1); }
};

/// Routes between GPUs. Implementations are deterministic: the same (src, dst) always gives
/// the same path (ECMP choices hash the pair), and a query costs O(path length).
class Router {
public:
  virtual ~Router() = default;
  /// Appends the hops from GPU `src` to GPU `dst` (ranks) to `out`; src != dst.
  virtual void route(const class Topology& topology, int src, int dst,
                     std::vector<Hop>& out) const = 0;
  /// Rail symmetry: turning every node's GPUs one place (local GPU k to k + 1, modulo the
  /// GPUs per node) maps the fabric onto itself and each route onto the turned pair's route,
  /// so the rails carry images of one another's traffic (the simulator's rail bundling,
  /// docs/fast-mode.md).
  [[nodiscard]] virtual bool rail_symmetric() const { return false; }
  /// With rail symmetry: the link that stands for `link`'s orbit under the turn, itself on
  /// every link of a rail-0 route except those that other rails' routes share (a Clos's
  /// spine-core links), so that rail 0's flows alone meet, on the orbit's link, the flows the
  /// other rails put on its images. The rail quotient of the platform is these links alone.
  [[nodiscard]] virtual int rail_link(int link) const { return link; }
  /// With rail symmetry: the rail (local GPU index) whose routes alone cross `link` (a GPU's
  /// own links, a rail leaf's), or -1 where the rails' routes share it (a Clos's spine-core
  /// links). A fault on a link of one rail breaks the turn for that rail alone.
  [[nodiscard]] virtual int rail_of_link(int /*link*/) const { return -1; }
};

/// What a generator knows about its fabric from the structure, so reports need no search.
struct FabricFacts {
  BytesPerSecond bisection;      ///< per direction; definition in docs/topologies.md
  int diameter = 0;              ///< the most links on any GPU-to-GPU route
  double oversubscription = 1.0; ///< leaf down-ports per up-port (1 when not a Clos)
  /// How the graph stands for the fabric where it is built otherwise than cabled ("" if not).
  std::string modelled_as;
};

class Topology {
public:
  Topology(Graph graph, std::unique_ptr<Router> router, int gpus_per_node);
  Topology(Graph graph, std::unique_ptr<Router> router, int gpus_per_node, FabricFacts facts);
  /// Takes the graph without copying it (the by-value forms copy once: see topology.cpp).
  Topology(std::unique_ptr<Graph> graph, std::unique_ptr<Router> router, int gpus_per_node,
           std::optional<FabricFacts> facts = std::nullopt);

  [[nodiscard]] const Graph& graph() const { return *graph_; }
  [[nodiscard]] int gpu_count() const { return static_cast<int>(gpus_.size()); }
  [[nodiscard]] int gpus_per_node() const { return gpus_per_node_; }
  [[nodiscard]] int node_of(int rank) const { return rank / gpus_per_node_; }
  [[nodiscard]] Vertex gpu_vertex(int rank) const { return gpus_[static_cast<size_t>(rank)]; }
  [[nodiscard]] int link_count() const { return static_cast<int>(links_.size()); }
  [[nodiscard]] const LinkProps& link(int id) const { return links_[static_cast<size_t>(id)]; }
  [[nodiscard]] std::pair<Vertex, Vertex> link_ends(int id) const;
  /// A degraded link (a scenario's faults): `factor` of its bandwidth, `extra` more latency.
  void degrade_link(int id, double factor, Seconds extra);
  /// Failed links (a scenario's faults) carry nothing from now on: a route that crossed one
  /// takes a shortest path over the links left instead, ECMP hashing among them as switches
  /// do once a next hop drops out (topologies/detour.hpp); routes that did not keep theirs.
  void fail_links(const std::vector<int>& ids);
  [[nodiscard]] bool link_failed(int id) const {
    return !failed_.empty() && failed_[static_cast<size_t>(id)];
  }
  /// Two GPUs that no working path joins, if failed links cut the fabric (topologies/detour.hpp).
  [[nodiscard]] std::optional<std::pair<int, int>> cut_pair() const;

  void route(int src, int dst, std::vector<Hop>& out) const {
    router_->route(*this, src, dst, out);
  }
  /// Sum of link latencies along the route.
  [[nodiscard]] Seconds path_latency(int src, int dst) const;
  /// The smallest link bandwidth along the route.
  [[nodiscard]] BytesPerSecond path_bandwidth(int src, int dst) const;

  /// Stable human name: "gpu12", "nvswitch3", "nic12", "leaf4", "spine0", "core2"; for an
  /// imported graph, the vertex's name in the file.
  [[nodiscard]] std::string vertex_name(Vertex v) const;
  /// Names by vertex id (one per vertex) that vertex_name() returns instead of the generated ones.
  void set_vertex_names(std::vector<std::string> names);
  /// "leaf4->spine0" for a hop.
  [[nodiscard]] std::string hop_name(Hop hop) const;

  /// Structural figures from the generator; empty for imported graphs (describe() measures them).
  [[nodiscard]] const std::optional<FabricFacts>& facts() const { return facts_; }
  [[nodiscard]] const Router& router() const { return *router_; }

private:
  // Held by pointer so that moving a Topology never copies the graph (see topology.cpp).
  std::unique_ptr<Graph> graph_;
  std::unique_ptr<Router> router_;
  int gpus_per_node_;
  std::vector<Vertex> gpus_;
  // Copies of the edge bundles and ends, by link id. Not edge descriptors: those point into
  // the graph's edge storage, and Boost 1.74's adjacency_list copies on move.
  std::vector<LinkProps> links_;
  std::vector<std::pair<Vertex, Vertex>> ends_;
  std::vector<bool> failed_; ///< by link id; empty while none has failed
  bool gpus_forward_ = false; ///< whether detours may relay through GPUs (fail_links)
  std::optional<FabricFacts> facts_;
  std::vector<std::string> names_; ///< empty: names are made from kind, level and index
};

} // namespace trainsim::topo
