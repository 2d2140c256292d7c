// A YAML mapping as the loader reads it: its plain values as strict Params (lists of plain
// values kept for the keys that take several words) and its sub-mappings by name. Only tools/io
// includes this (it exposes yaml-cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "models/params.hpp"

namespace trainsim {

/// A YAML mapping split into its scalar values (as Params) and its sub-mappings.
struct Section {
  Params values;
  std::map<std::string, YAML::Node> children;
};

/// "a mapping", "a list", "nothing" or "a value".
const char* node_kind(const YAML::Node& n);
/// `path.key`, or `key` at the top level.
std::string join(const std::string& path, const std::string& key);

/// The mapping `node` at `path` of `file`: the keys in `child_names` as sub-mappings, every
/// other key a value. InputError for a node that is not a mapping or a key given twice.
Section read_section(const YAML::Node& node, const std::string& file, const std::string& path,
                     const std::vector<std::string>& child_names);

/// The sub-section `name` of `parent`, which must be present.
const YAML::Node& child(const Section& parent, const std::string& name, const std::string& file,
                        const std::string& path);

} // namespace trainsim
