#include "topologies/import.hpp"

#include "models/input_file.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "models/plausibility.hpp"
#include "sim/log.hpp"
#include "topologies/build.hpp"
#include "topologies/import_formats.hpp"
#include "topologies/shortest_path.hpp"

namespace trainsim::topo {
namespace {

bool is_plain_number(const std::string& text, double& value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

// Units are required, as in scenarios: a bare "450" could be B/s, GB/s or Gb/s, and a
// factor of 8 or 1e9 off is the commonest mistake in a hand-written graph.
template <class Q>
Q quantity(const std::string& text, Q (*parse)(std::string_view), const std::string& file,
           const RawLink& l, const char* key, const char* example, Plausible plausible) {
  double v = 0;
  if (is_plain_number(text, v))
    throw InputError(file, l.where + " " + key, text,
                     std::string("a bare number: give its unit, e.g. '") + example + "'");
  Q q;
  try {
    q = parse(text);
  } catch (const std::invalid_argument& e) {
    throw InputError(file, l.where + " " + key, text, e.what());
  }
  if (!std::isfinite(q.value()))
    throw InputError(file, l.where + " " + key, text, "is not a finite number");
  if (std::string why = implausibility(plausible, q.value()); !why.empty())
    logger("trainsim.input")
        ->warn("{}: {} {} = '{}': {}; using it anyway", file, l.where, key, text, why);
  return q;
}

bool starts_with_number(std::string_view name, std::string_view prefix, int& number) {
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return false;
  auto [end, ec] = std::from_chars(name.data() + prefix.size(), name.data() + name.size(), number);
  return ec == std::errc() && end == name.data() + name.size() && number >= 0;
}

VertexProps infer_kind(const RawVertex& v, const std::string& file) {
  static const std::vector<std::pair<std::string, VertexProps>> kinds{
      {"gpu", {VertexKind::gpu, 0, 0}},          {"nvswitch", {VertexKind::nvswitch, 0, 0}},
      {"nic", {VertexKind::nic, 0, 0}},          {"leaf", {VertexKind::net_switch, 1, 0}},
      {"spine", {VertexKind::net_switch, 2, 0}}, {"core", {VertexKind::net_switch, 3, 0}},
      {"switch", {VertexKind::net_switch, 1, 0}}};
  std::vector<std::string> names;
  for (const auto& [kind, props] : kinds) {
    bool match = v.kind.empty() ? v.name.rfind(kind, 0) == 0 : v.kind == kind;
    if (match) return VertexProps{props.kind, v.level >= 0 ? v.level : props.level, 0};
    names.push_back(kind);
  }
  if (!v.kind.empty())
    throw InputError(file, "vertex '" + v.name + "' kind", v.kind,
                     "unknown kind" + did_you_mean(v.kind, names));
  return VertexProps{VertexKind::net_switch, v.level >= 0 ? v.level : 1, 0}; // an unnamed switch
}

Tier infer_tier(const Graph& g, Vertex a, Vertex b) {
  VertexKind ka = g[a].kind, kb = g[b].kind;
  auto either = [&](VertexKind x, VertexKind y) {
    return (ka == x && kb == y) || (ka == y && kb == x);
  };
  if (either(VertexKind::gpu, VertexKind::nvswitch)) return Tier::nvlink;
  if (either(VertexKind::gpu, VertexKind::nic)) return Tier::host;
  if (either(VertexKind::gpu, VertexKind::gpu)) return Tier::direct;
  if (ka == VertexKind::nic || kb == VertexKind::nic) return Tier::leaf;
  return std::max(g[a].level, g[b].level) >= 3 ? Tier::core : Tier::spine;
}

Tier parse_tier(const std::string& text, const std::string& file, const RawLink& l) {
  static const std::vector<Tier> all{Tier::nvlink, Tier::host,   Tier::leaf,  Tier::spine,
                                     Tier::core,   Tier::direct, Tier::global};
  std::vector<std::string> names;
  for (Tier t : all) {
    if (to_string(t) == text) return t;
    names.push_back(to_string(t));
  }
  throw InputError(file, l.where + " tier", text, "unknown tier" + did_you_mean(text, names));
}

// GPU ranks: the numbers of "gpuN" names when they are exactly 0..N-1, else appearance order.
std::vector<size_t> gpu_order(const std::vector<RawVertex>& vertices,
                              const std::vector<VertexProps>& props) {
  std::vector<size_t> gpus;
  for (size_t i = 0; i < vertices.size(); ++i)
    if (props[i].kind == VertexKind::gpu) gpus.push_back(i);
  std::vector<size_t> by_number(gpus.size(), SIZE_MAX);
  for (size_t i : gpus) {
    int n = -1;
    if (!starts_with_number(vertices[i].name, "gpu", n) || static_cast<size_t>(n) >= gpus.size() ||
        by_number[static_cast<size_t>(n)] != SIZE_MAX)
      return gpus;
    by_number[static_cast<size_t>(n)] = i;
  }
  return by_number;
}

class Assembler {
public:
  Assembler(RawGraph raw, std::string file) : raw_(std::move(raw)), file_(std::move(file)) {}

  std::unique_ptr<Graph> build() {
    add_implicit_vertices();
    add_vertices_in_rank_order();
    for (const auto& l : raw_.links) add(l);
    return std::move(g_);
  }
  /// The file's name of each vertex, by vertex id (valid after build()).
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> names(raw_.vertices.size());
    for (size_t i = 0; i < raw_.vertices.size(); ++i) names[vertex_of_[i]] = raw_.vertices[i].name;
    return names;
  }

private:
  void add_implicit_vertices() {
    for (size_t i = 0; i < raw_.vertices.size(); ++i) {
      if (!index_.emplace(raw_.vertices[i].name, i).second)
        throw InputError(file_, "vertex", raw_.vertices[i].name, "is declared twice");
    }
    bool declared = !raw_.vertices.empty();
    for (const auto& l : raw_.links)
      for (const auto* name : {&l.a, &l.b}) {
        if (index_.contains(*name)) continue;
        if (declared)
          throw InputError(file_, l.where, *name, "names a vertex that is not declared");
        index_.emplace(*name, raw_.vertices.size());
        raw_.vertices.push_back(RawVertex{*name, "", -1});
      }
  }
  void add_vertices_in_rank_order() {
    std::vector<VertexProps> props;
    for (const auto& v : raw_.vertices) props.push_back(infer_kind(v, file_));
    std::vector<size_t> order = gpu_order(raw_.vertices, props);
    for (size_t i = 0; i < raw_.vertices.size(); ++i)
      if (props[i].kind != VertexKind::gpu) order.push_back(i);
    vertex_of_.resize(raw_.vertices.size());
    std::array<int, 4> per_kind{};
    for (size_t i : order) {
      VertexProps p = props[i];
      p.index = per_kind[static_cast<size_t>(p.kind)]++;
      vertex_of_[i] = boost::add_vertex(p, *g_);
    }
  }
  void add(const RawLink& l) {
    Vertex a = vertex_of_[index_.at(l.a)], b = vertex_of_[index_.at(l.b)];
    if (a == b) throw InputError(file_, l.where, l.a, "links a vertex to itself");
    // A second cable between the same two vertices would be a second equal-cost route to
    // the router, whose hashing then splits the flows as no real bonding does: one link with
    // the summed bandwidth says what is meant.
    auto [seen, added] = joined_.emplace(std::minmax(a, b), l.where);
    if (!added)
      throw InputError(file_, l.where, l.a + " - " + l.b,
                       "joins the same two vertices as " + seen->second +
                           ": give one link with their total bandwidth");
    auto bw = quantity<BytesPerSecond>(l.bandwidth, &parse_bandwidth, file_, l, "bandwidth",
                                       "450GBps", Plausible::link_bandwidth);
    if (!(bw.value() > 0))
      throw InputError(file_, l.where + " bandwidth", l.bandwidth, "must be greater than zero");
    auto lat = quantity<Seconds>(l.latency, &parse_seconds, file_, l, "latency", "1us",
                                 Plausible::link_latency);
    if (lat.value() < 0)
      throw InputError(file_, l.where + " latency", l.latency, "must not be negative");
    Tier tier = l.tier.empty() ? infer_tier(*g_, a, b) : parse_tier(l.tier, file_, l);
    add_link(*g_, a, b, bw, lat, tier);
  }

  RawGraph raw_;
  std::string file_;
  std::unique_ptr<Graph> g_ = std::make_unique<Graph>();
  std::unordered_map<std::string, size_t> index_;
  std::vector<Vertex> vertex_of_;
  std::map<std::pair<Vertex, Vertex>, std::string> joined_; // each pair's first link
};

// The NVSwitch GPU `rank` hangs off, or none.
std::optional<Vertex> nvswitch_of(const Graph& g, int rank) {
  for (auto w : boost::make_iterator_range(boost::adjacent_vertices(static_cast<Vertex>(rank), g)))
    if (g[w].kind == VertexKind::nvswitch) return w;
  return std::nullopt;
}

// Each GPU with an NVSwitch is wired to `planes` of them (topology_spec.hpp, nvswitch_planes).
void check_nvswitch_planes(const Graph& g, int planes, const std::string& file,
                           const std::vector<std::string>& names) {
  for (auto v : boost::make_iterator_range(boost::vertices(g))) {
    if (g[v].kind != VertexKind::gpu) continue;
    std::vector<std::string> switches;
    for (auto w : boost::make_iterator_range(boost::adjacent_vertices(v, g)))
      if (g[w].kind == VertexKind::nvswitch) switches.push_back(names[w]);
    if (switches.empty() || static_cast<int>(switches.size()) == planes) continue;
    std::string list;
    for (const auto& name : switches) list += (list.empty() ? "" : ", ") + name;
    throw InputError(file, names[v] + " is wired to " + std::to_string(switches.size()) +
                               " NVSwitches (" + list + ") where nvswitch_planes is " +
                               std::to_string(planes) +
                               ": fix the links, or set the file section's nvswitch_planes to " +
                               std::to_string(switches.size()) +
                               " if every GPU reaches that many NVSwitch planes (as in a DGX "
                               "H100)");
  }
}

// NVLink domain size: the GPUs sharing each NVSwitch, when every GPU has one, ranks of a
// switch are contiguous and all domains are the same size; otherwise 1.
int infer_gpus_per_node(const Graph& g, int gpus) {
  int size = 0;
  while (size < gpus && nvswitch_of(g, size) && nvswitch_of(g, size) == nvswitch_of(g, 0)) ++size;
  if (size == 0 || gpus % size != 0) return 1;
  for (int r = 0; r < gpus; ++r)
    if (!nvswitch_of(g, r) || nvswitch_of(g, r) != nvswitch_of(g, r - r % size)) return 1;
  return size;
}

int count_gpus(const Graph& g) {
  int n = 0;
  for (auto v : boost::make_iterator_range(boost::vertices(g))) n += g[v].kind == VertexKind::gpu;
  return n;
}

} // namespace

GraphFormat graph_format(const ImportParams& options, const Params* section) {
  std::string f = options.format;
  if (f == "auto") {
    f = std::filesystem::path(options.path).extension().string();
    if (!f.empty()) f.erase(0, 1);
    if (f == "xml") f = "graphml";
  }
  if (f == "graphml") return GraphFormat::graphml;
  if (f == "json") return GraphFormat::json;
  if (f == "csv") return GraphFormat::csv;
  std::string problem = "unknown graph format '" + f + "'" +
                        did_you_mean(f, {"graphml", "json", "csv"}) +
                        " (graphml, json or csv; set format when the extension says none of these)";
  if (section) section->fail("format", problem);
  throw InputError(options.path, problem);
}

void check_connected(const Graph& g, const std::string& file,
                     const std::vector<std::string>& names) {
  auto n = boost::num_vertices(g);
  if (n == 0 || g[0].kind != VertexKind::gpu) throw InputError(file, "has no GPU");
  auto name = [&](Vertex v) {
    return v < names.size() ? names[v] : to_string(g[v].kind) + std::to_string(g[v].index);
  };
  for (auto v : boost::make_iterator_range(boost::vertices(g)))
    if (g[v].kind == VertexKind::gpu && boost::out_degree(v, g) == 0)
      throw InputError(file, name(v) + " has no link: no route reaches it");
  std::vector<char> seen(n, 0);
  std::vector<Vertex> stack{0};
  seen[0] = 1;
  while (!stack.empty()) {
    Vertex v = stack.back();
    stack.pop_back();
    for (auto w : boost::make_iterator_range(boost::adjacent_vertices(v, g)))
      if (!seen[w]) seen[w] = 1, stack.push_back(w);
  }
  for (auto v : boost::make_iterator_range(boost::vertices(g))) {
    if (!seen[v])
      throw InputError(file, "the graph is disconnected: " + name(v) + " is not reachable from " +
                                 name(0));
  }
}

Topology read_topology(std::istream& in, GraphFormat format, const std::string& file,
                       const ImportParams& options) {
  RawGraph raw = read_raw(in, format, file);
  int declared_gpn = options.gpus_per_node > 0 ? options.gpus_per_node : raw.gpus_per_node;
  Assembler assembler(std::move(raw), file);
  std::unique_ptr<Graph> g = assembler.build();
  check_connected(*g, file, assembler.names());
  check_nvswitch_planes(*g, options.nvswitch_planes, file, assembler.names());
  int gpus = count_gpus(*g);
  int gpn = declared_gpn > 0 ? declared_gpn : infer_gpus_per_node(*g, gpus);
  if (gpus % gpn != 0)
    throw InputError(file, "gpus_per_node", std::to_string(gpn),
                     "does not divide the " + std::to_string(gpus) + " GPUs");
  auto router =
      std::make_unique<ShortestPathRouter>(static_cast<size_t>(options.route_cache_mib) << 20);
  Topology topology(std::move(g), std::move(router), gpn);
  topology.set_vertex_names(assembler.names()); // reports and exports keep the file's names
  return topology;
}

Topology import_topology(const ImportParams& options) {
  GraphFormat format = graph_format(options);
  std::istringstream in(read_input_file(options.path, "topology file", kMaxTopologyFileBytes));
  return read_topology(in, format, options.path, options);
}

} // namespace trainsim::topo
