#include "topologies/export.hpp"

#include <cstdio>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/error.hpp"

namespace trainsim::topo {
namespace {

// Imports require units, so exports carry them, in SI base units with every digit of the
// double: "4.5e+11Bps", "5.0000000000000002e-07s" read back to the same bits.
std::string exact(double si, const char* unit) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g%s", si, unit);
  return text;
}
std::string exact_bandwidth(BytesPerSecond b) { return exact(b.value(), "Bps"); }
std::string exact_latency(Seconds s) { return exact(s.value(), "s"); }

const char* dot_style(const VertexProps& p) {
  switch (p.kind) {
  case VertexKind::gpu:
    return "shape=box, style=filled, fillcolor=\"#76b900\"";
  case VertexKind::nvswitch:
    return "shape=hexagon, style=filled, fillcolor=\"#b3d98c\"";
  case VertexKind::nic:
    return "shape=ellipse, style=filled, fillcolor=\"#dddddd\"";
  case VertexKind::net_switch:
    return "shape=box, style=\"rounded,filled\", fillcolor=\"#8ab4f8\"";
  }
  return "";
}

const char* dot_colour(Tier tier) {
  switch (tier) {
  case Tier::nvlink:
    return "#4d8a00";
  case Tier::host:
    return "#888888";
  case Tier::leaf:
    return "#1a73e8";
  case Tier::spine:
    return "#8430ce";
  case Tier::core:
    return "#d93025";
  case Tier::direct:
    return "#e37400";
  case Tier::global:
    return "#d01884";
  }
  return "black";
}

// A quoted DOT identifier; imported names may hold quotes or backslashes.
std::string dot_id(const Topology& t, Vertex v) {
  std::string id = "\"";
  for (char c : t.vertex_name(v)) {
    if (c == '"' || c == '\\') id += '\\';
    id += c;
  }
  return id + "\"";
}

// Switches of one level share a rank so trees draw as layers.
void dot_ranks(const Topology& t, std::ostream& out) {
  const Graph& g = t.graph();
  for (int level = 1; level <= 3; ++level) {
    std::string members;
    for (auto v : boost::make_iterator_range(boost::vertices(g)))
      if (g[v].kind == VertexKind::net_switch && g[v].level == level)
        members.append(" ")
            .append(dot_id(t, v))
            .append(";"); // not " " + ...: GCC 12's false -Wrestrict
    if (!members.empty()) out << "  { rank=same;" << members << " }\n";
  }
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text)
    out += c == '<'   ? "&lt;"
           : c == '>' ? "&gt;"
           : c == '&' ? "&amp;"
           : c == '"' ? "&quot;"
                      : std::string(1, c);
  return out;
}

// Graphs without switches (tori, direct links) have no layers; a spring layout reads better.
bool has_switches(const Graph& g) {
  for (auto v : boost::make_iterator_range(boost::vertices(g)))
    if (g[v].kind != VertexKind::gpu) return true;
  return false;
}

} // namespace

void export_dot(const Topology& t, std::ostream& out) {
  const Graph& g = t.graph();
  out << "graph topology {\n  "
      << (has_switches(g) ? "rankdir=BT" : "layout=neato; mode=KK; overlap=false") << ";\n";
  out << "  node [fontname=\"Helvetica\", fontsize=10];\n";
  for (auto v : boost::make_iterator_range(boost::vertices(g)))
    out << "  " << dot_id(t, v) << " [" << dot_style(g[v]) << "];\n";
  dot_ranks(t, out);
  for (int id = 0; id < t.link_count(); ++id) {
    auto [a, b] = t.link_ends(id);
    const LinkProps& l = t.link(id);
    out << "  " << dot_id(t, a) << " -- " << dot_id(t, b) << " [color=\"" << dot_colour(l.tier)
        << "\", tooltip=\"" << to_string(l.tier) << " " << format(l.bandwidth) << "\"];\n";
  }
  out << "}\n";
}

void export_graphml(const Topology& t, std::ostream& out) {
  const Graph& g = t.graph();
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
         "  <key id=\"gpn\" for=\"graph\" attr.name=\"gpus_per_node\" attr.type=\"int\"/>\n"
         "  <key id=\"kind\" for=\"node\" attr.name=\"kind\" attr.type=\"string\"/>\n"
         "  <key id=\"level\" for=\"node\" attr.name=\"level\" attr.type=\"int\"/>\n"
         "  <key id=\"bw\" for=\"edge\" attr.name=\"bandwidth\" attr.type=\"string\"/>\n"
         "  <key id=\"lat\" for=\"edge\" attr.name=\"latency\" attr.type=\"string\"/>\n"
         "  <key id=\"tier\" for=\"edge\" attr.name=\"tier\" attr.type=\"string\"/>\n"
         "  <graph id=\"topology\" edgedefault=\"undirected\">\n"
      << "    <data key=\"gpn\">" << t.gpus_per_node() << "</data>\n";
  for (auto v : boost::make_iterator_range(boost::vertices(g)))
    out << "    <node id=\"" << xml_escape(t.vertex_name(v)) << "\"><data key=\"kind\">"
        << to_string(g[v].kind) << "</data><data key=\"level\">" << g[v].level
        << "</data></node>\n";
  for (int id = 0; id < t.link_count(); ++id) {
    auto [a, b] = t.link_ends(id);
    const LinkProps& l = t.link(id);
    out << "    <edge id=\"e" << id << "\" source=\"" << xml_escape(t.vertex_name(a))
        << "\" target=\"" << xml_escape(t.vertex_name(b)) << "\"><data key=\"bw\">"
        << exact_bandwidth(l.bandwidth) << "</data><data key=\"lat\">" << exact_latency(l.latency)
        << "</data><data key=\"tier\">" << to_string(l.tier) << "</data></edge>\n";
  }
  out << "  </graph>\n</graphml>\n";
}

void export_json(const Topology& t, std::ostream& out) {
  const Graph& g = t.graph();
  nlohmann::json doc{{"gpus_per_node", t.gpus_per_node()}};
  auto& vertices = doc["vertices"] = nlohmann::json::array();
  for (auto v : boost::make_iterator_range(boost::vertices(g)))
    vertices.push_back(
        {{"name", t.vertex_name(v)}, {"kind", to_string(g[v].kind)}, {"level", g[v].level}});
  auto& links = doc["links"] = nlohmann::json::array();
  for (int id = 0; id < t.link_count(); ++id) {
    auto [a, b] = t.link_ends(id);
    const LinkProps& l = t.link(id);
    links.push_back({{"a", t.vertex_name(a)},
                     {"b", t.vertex_name(b)},
                     {"bandwidth", exact_bandwidth(l.bandwidth)},
                     {"latency", exact_latency(l.latency)},
                     {"tier", to_string(l.tier)}});
  }
  out << doc.dump(1) << "\n";
}

void export_topology(const Topology& t, std::string_view format, std::ostream& out) {
  if (format == "dot") return export_dot(t, out);
  if (format == "graphml") return export_graphml(t, out);
  if (format == "json") return export_json(t, out);
  throw InputError("command line", "--format", format,
                   "unknown export format (dot, graphml or json)" +
                       did_you_mean(format, {"dot", "graphml", "json"}));
}

} // namespace trainsim::topo
