#include "topologies/import_formats.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <istream>
#include <iterator>
#include <map>
#include <sstream>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <nlohmann/json.hpp>

#include "models/error.hpp"

namespace trainsim::topo {
namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// ---- CSV: "a,b,bandwidth,latency[,tier]" per line; '#' comments; optional header line.
RawGraph read_csv(std::istream& in, const std::string& file) {
  RawGraph raw;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string text = trim(line.substr(0, line.find('#')));
    if (text.empty()) continue;
    std::vector<std::string> f;
    std::stringstream fields(text);
    for (std::string field; std::getline(fields, field, ',');) f.push_back(trim(field));
    if (raw.links.empty() && !f.empty() && (f[0] == "a" || f[0] == "source")) continue; // header
    if (f.size() != 4 && f.size() != 5)
      throw InputError(file, "line " + std::to_string(number), text,
                       "expected 4 or 5 fields: a,b,bandwidth,latency[,tier]");
    raw.links.push_back(RawLink{f[0], f[1], f[2], f[3], f.size() == 5 ? f[4] : "",
                                "line " + std::to_string(number)});
  }
  return raw;
}

// ---- JSON: {"gpus_per_node": 8, "vertices": [{"name", "kind", "level"}], "links": [{"a", "b",
// "bandwidth", "latency", "tier"}]}; numbers are SI, strings carry units.
std::string json_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void reject_unknown_keys(const nlohmann::json& object, const std::vector<std::string>& known,
                         const std::string& file, const std::string& where) {
  if (!object.is_object()) throw InputError(file, where, object.dump(), "must be an object");
  for (const auto& [key, value] : object.items())
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw InputError(file, where + "." + key, json_text(value),
                       "unknown key" + did_you_mean(key, known));
}

std::string json_field(const nlohmann::json& object, const char* key, const std::string& file,
                       const std::string& where, bool required) {
  if (!object.contains(key)) {
    if (required) throw InputError(file, where + "." + key, "", "is missing");
    return "";
  }
  return json_text(object[key]);
}

void read_json_vertices(const nlohmann::json& vertices, const std::string& file, RawGraph& raw) {
  if (!vertices.is_array())
    throw InputError(file, "vertices", json_text(vertices), "must be an array");
  for (size_t i = 0; i < vertices.size(); ++i) {
    const auto& v = vertices[i];
    std::string where = "vertices[" + std::to_string(i) + "]";
    reject_unknown_keys(v, {"name", "kind", "level"}, file, where);
    int level =
        v.contains("level") ? whole_number(json_text(v["level"]), 0, file, where + ".level") : -1;
    raw.vertices.push_back(RawVertex{json_field(v, "name", file, where, true),
                                     json_field(v, "kind", file, where, false), level});
  }
}

void read_json_links(const nlohmann::json& links, const std::string& file, RawGraph& raw) {
  if (!links.is_array()) throw InputError(file, "links", json_text(links), "must be an array");
  for (size_t i = 0; i < links.size(); ++i) {
    const auto& l = links[i];
    std::string where = "links[" + std::to_string(i) + "]";
    reject_unknown_keys(l, {"a", "b", "bandwidth", "latency", "tier"}, file, where);
    raw.links.push_back(RawLink{
        json_field(l, "a", file, where, true), json_field(l, "b", file, where, true),
        json_field(l, "bandwidth", file, where, true), json_field(l, "latency", file, where, true),
        json_field(l, "tier", file, where, false), where});
  }
}

// nlohmann::json parses nested arrays and objects recursively: a file of a few hundred
// thousand '[' would overflow the stack. No topology file nests more than a few levels.
void reject_deep_nesting(const std::string& text, const std::string& file) {
  constexpr int kMaxDepth = 64;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{')
      depth += 1;
    else if (c == ']' || c == '}')
      depth -= 1;
    if (depth > kMaxDepth)
      throw InputError(file, "malformed JSON: nested deeper than " + std::to_string(kMaxDepth) +
                                 " levels");
  }
}

// Where the parser stopped, as a person reads the file: line and column of the token it could
// not take, and the token. `byte` is the parser's count of bytes read (1 for the first), at
// most one past the end; the parser reads a whole token before it judges it, so the token
// ends there.
std::string malformed_json(const std::string& text, size_t byte) {
  size_t end = byte > 0 ? byte - 1 : 0;
  if (end >= text.size() || text.find_first_not_of(" \t\r\n", end) == std::string::npos)
    return "malformed JSON: the text ends before the document does (a truncated file?)";
  size_t line_start = text.rfind('\n', end);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+';
  };
  size_t begin = end;
  if (text[end] == '"' && end > line_start && text.rfind('"', end - 1) != std::string::npos &&
      text.rfind('"', end - 1) >= line_start)
    begin = text.rfind('"', end - 1);
  else
    while (word(text[end]) && begin > line_start && word(text[begin - 1])) --begin;
  long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(begin), '\n');
  std::string token = text.substr(begin, std::min<size_t>(end - begin + 1, 40));
  bool printable = std::all_of(token.begin(), token.end(),
                               [](char c) { return std::isprint(static_cast<unsigned char>(c)); });
  return "malformed JSON at line " + std::to_string(line) + ", column " +
         std::to_string(begin - line_start + 1) + ": unexpected " +
         (printable ? token : std::string("control character"));
}

RawGraph read_json(std::istream& in, const std::string& file) {
  nlohmann::json doc;
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  reject_deep_nesting(text, file);
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(file, malformed_json(text, e.byte));
  } catch (const nlohmann::json::exception&) { // out_of_range: a number such as 1e400
    throw InputError(file, "malformed JSON: a number too large for a double");
  }
  reject_unknown_keys(doc, {"gpus_per_node", "vertices", "links"}, file, "top level");
  RawGraph raw;
  if (doc.contains("gpus_per_node"))
    raw.gpus_per_node = whole_number(json_text(doc["gpus_per_node"]), 1, file, "gpus_per_node");
  if (doc.contains("vertices")) read_json_vertices(doc["vertices"], file, raw);
  if (!doc.contains("links")) throw InputError(file, "links", "", "is missing (an array)");
  read_json_links(doc["links"], file, raw);
  return raw;
}

// ---- GraphML: <key attr.name="kind|level|bandwidth|latency|tier|gpus_per_node"> declarations,
// <node id> and <edge source target> with <data key> children.
using boost::property_tree::ptree;

std::map<std::string, std::string> data_of(const ptree& element,
                                           const std::map<std::string, std::string>& names) {
  std::map<std::string, std::string> data;
  for (const auto& [tag, child] : element) {
    if (tag != "data") continue;
    auto key = child.get<std::string>("<xmlattr>.key", "");
    auto it = names.find(key);
    data[it == names.end() ? key : it->second] = trim(child.data());
  }
  return data;
}

RawGraph read_graphml(std::istream& in, const std::string& file) {
  ptree doc;
  try {
    boost::property_tree::read_xml(in, doc);
  } catch (const boost::property_tree::xml_parser_error& e) {
    throw InputError(file, "line " + std::to_string(e.line()), "",
                     "malformed GraphML: " + e.message());
  }
  auto root = doc.get_child_optional("graphml");
  if (!root) throw InputError(file, "malformed GraphML: no <graphml> element");
  std::map<std::string, std::string> names; // key id -> attr.name (a '/' path: the name has a dot)
  for (const auto& [tag, child] : *root)
    if (tag == "key")
      names[child.get<std::string>("<xmlattr>.id", "")] =
          child.get<std::string>(ptree::path_type("<xmlattr>/attr.name", '/'), "");
  auto graph = root->get_child_optional("graph");
  if (!graph) throw InputError(file, "malformed GraphML: no <graph> element");
  RawGraph raw;
  auto graph_data = data_of(*graph, names);
  if (graph_data.contains("gpus_per_node"))
    raw.gpus_per_node = whole_number(graph_data["gpus_per_node"], 1, file, "graph gpus_per_node");
  int edges = 0;
  for (const auto& [tag, child] : *graph) {
    auto data = data_of(child, names);
    if (tag == "node") {
      auto id = child.get<std::string>("<xmlattr>.id", "");
      int level = data.contains("level")
                      ? whole_number(data["level"], 0, file, "node " + id + " level")
                      : -1;
      raw.vertices.push_back(RawVertex{id, data["kind"], level});
    } else if (tag == "edge") {
      auto where = "edge " + child.get<std::string>("<xmlattr>.id", std::to_string(edges));
      ++edges;
      for (const char* required : {"bandwidth", "latency"})
        if (!data.contains(required))
          throw InputError(file, where + " " + required, "", "is missing");
      raw.links.push_back(RawLink{child.get<std::string>("<xmlattr>.source", ""),
                                  child.get<std::string>("<xmlattr>.target", ""), data["bandwidth"],
                                  data["latency"], data["tier"], where});
    }
  }
  return raw;
}

} // namespace

int whole_number(const std::string& text, int least, const std::string& file,
                 const std::string& where) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < least)
    throw InputError(file, where, text, "must be a whole number >= " + std::to_string(least));
  return v;
}

RawGraph read_raw(std::istream& in, GraphFormat format, const std::string& file) {
  switch (format) {
  case GraphFormat::graphml:
    return read_graphml(in, file);
  case GraphFormat::json:
    return read_json(in, file);
  case GraphFormat::csv:
    return read_csv(in, file);
  }
  return {};
}

} // namespace trainsim::topo
