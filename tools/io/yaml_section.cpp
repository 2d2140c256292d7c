#include "tools/io/yaml_section.hpp"

#include <optional>
#include <set>

#include "models/error.hpp"

namespace trainsim {

const char* node_kind(const YAML::Node& n) {
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  if (n.IsNull()) return "nothing";
  return "a value";
}

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

namespace {

// yaml-cpp keeps both pairs of a repeated key and a map keeps the last: the first value
// would be dropped without a word (a second `model:` section loses the whole first one).
void reject_duplicates(const YAML::Node& node, const std::string& file, const std::string& path) {
  std::map<std::string, int> first_line;
  for (const auto& item : node) {
    if (!item.first.IsScalar()) continue;
    int line = item.first.Mark().line + 1;
    auto [it, fresh] = first_line.emplace(item.first.Scalar(), line);
    if (fresh) continue;
    std::string where =
        it->second == line ? "twice on line " + std::to_string(line)
                           : "lines " + std::to_string(it->second) + " and " + std::to_string(line);
    throw InputError(file, join(path, it->first) + ": duplicate key (" + where + ")");
  }
}

[[noreturn]] void not_a_mapping(const YAML::Node& node, const std::string& file,
                                const std::string& path) {
  if (path.empty())
    throw InputError(
        file,
        std::string("the top level must be a mapping with model, system and execution, found ") +
            node_kind(node));
  throw InputError(file, path, "", std::string("must be a mapping, found ") + node_kind(node));
}

// A list of plain values, which a key that takes several words reads (Params::get_words).
std::optional<std::vector<std::string>> plain_items(const YAML::Node& node) {
  if (!node.IsSequence()) return std::nullopt;
  std::vector<std::string> items;
  for (const auto& item : node) {
    if (!item.IsScalar()) return std::nullopt;
    items.push_back(item.Scalar());
  }
  return items;
}

} // namespace

Section read_section(const YAML::Node& node, const std::string& file, const std::string& path,
                     const std::vector<std::string>& child_names) {
  if (!node.IsMap()) not_a_mapping(node, file, path);
  reject_duplicates(node, file, path);
  std::map<std::string, std::string> scalars;
  std::set<std::string> structured;
  std::map<std::string, std::vector<std::string>> lists;
  Section section;
  for (const auto& item : node) {
    if (!item.first.IsScalar())
      throw InputError(file, path.empty() ? "top level" : path, "",
                       std::string("has a key that is ") + node_kind(item.first) + ", not a name");
    auto key = item.first.Scalar();
    if (std::find(child_names.begin(), child_names.end(), key) != child_names.end()) {
      section.children[key] = item.second;
    } else if (item.second.IsScalar()) {
      scalars[key] = item.second.Scalar();
    } else {
      scalars[key] = node_kind(item.second); // a typo of a section, or a value written as a mapping
      structured.insert(key);
      if (auto items = plain_items(item.second)) lists[key] = std::move(*items);
    }
  }
  section.values = Params(file, path, std::move(scalars), std::move(structured), std::move(lists));
  return section;
}

/// The sub-section `name` of `parent`, which must be present.
const YAML::Node& child(const Section& parent, const std::string& name, const std::string& file,
                        const std::string& path) {
  auto it = parent.children.find(name);
  if (it == parent.children.end()) throw InputError(file, join(path, name), "", "is missing");
  return it->second;
}

} // namespace trainsim
