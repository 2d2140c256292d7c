// A scenario from its file to a LoadedScenario: read the text, parse it into a tree, let
// sweeps edit the tree, read the tree into a Scenario (scenario_loader.cpp) and build it.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "models/error.hpp"
#include "tools/io/provenance.hpp"
#include "tools/io/scenario_loader.hpp"

#include "models/input_file.hpp"

#include <set>
#include "tools/io/scenario_reader.hpp"

namespace trainsim {

struct ScenarioTree::Tree {
  YAML::Node root;
};

ScenarioTree ScenarioTree::parse(const std::string& text, const std::string& file) {
  ScenarioTree t;
  t.tree_ = std::make_shared<const Tree>(Tree{parse_yaml(text, file)});
  t.file_ = file;
  t.hash_ = input_hash(text);
  return t;
}

void ScenarioTree::set(const std::string& dotted_key, const std::string& value) {
  auto copy = std::make_shared<Tree>(Tree{YAML::Clone(tree_->root)});
  std::vector<std::string> path;
  std::stringstream parts(dotted_key);
  for (std::string part; std::getline(parts, part, '.');) path.push_back(part);
  static const std::set<std::string> parts_of_a_scenario{"description", "model", "system",
                                                         "execution"};
  if (path.size() == 1 && !parts_of_a_scenario.count(path[0]))
    throw InputError(file_, dotted_key, value,
                     "is not a scenario key: a key is its dotted path from the top, model.*, "
                     "system.gpu.*, system.topology.* or execution.* (e.g. execution." +
                         path[0] + ")");
  try {
    // One Node per level: assigning to a Node variable would rebind it, not set the value.
    std::vector<YAML::Node> chain{copy->root};
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      YAML::Node next = chain.back()[path[i]];
      // `gpu: h100-sxm` names a preset: a figure set under it overrides that preset's.
      if (i == 1 && path[0] == "system" && path[1] == "gpu" && next.IsScalar()) {
        YAML::Node preset(YAML::NodeType::Map);
        preset["preset"] = next.Scalar();
        chain.back()[path[i]] = preset;
        next = chain.back()[path[i]];
      } else if (next.IsScalar()) {
        throw InputError(file_, dotted_key, value,
                         "cannot set it: " + path[i] + " is a value, not a section");
      }
      chain.push_back(next);
    }
    chain.back()[path.back()] = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    throw InputError(file_, dotted_key, value, "cannot set it: " + e.msg);
  }
  tree_ = std::move(copy);
  hash_.clear();
}

std::string ScenarioTree::text() const {
  YAML::Emitter out;
  out << tree_->root;
  return out.c_str();
}

Scenario ScenarioTree::read() const {
  Scenario s = read_scenario(tree_->root, file_);
  s.input_hash = hash_.empty() ? input_hash(text()) : hash_;
  return s;
}

LoadedScenario ScenarioTree::load(const LoadOptions& options) const {
  return build_scenario(read(), options);
}

LoadedScenario parse_scenario(const std::string& text, const std::string& file,
                              const LoadOptions& options) {
  return ScenarioTree::parse(text, file).load(options);
}

LoadedScenario load_scenario(const std::string& path, const LoadOptions& options) {
  return parse_scenario(read_input_file(path, "scenario file", kMaxScenarioBytes), path, options);
}

} // namespace trainsim
