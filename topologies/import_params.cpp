// The `file` generator's section: where the graph is, its format, and the figures a file may
// leave out (topologies/import.hpp reads the graph itself).
#include <filesystem>

#include "topologies/fields.hpp"
#include "topologies/import.hpp"

namespace trainsim::topo {
namespace {

// Relative to the scenario's folder, so that a scenario and its graph move together.
std::string resolved_path(const Params& section) {
  std::string path = section.get<std::string>("path");
  if (std::filesystem::path(path).is_relative() && !section.file().empty())
    return (std::filesystem::path(section.file()).parent_path() / path).string();
  return path;
}

// 0 stands for "inferred from the graph": absent, the key is neither read nor listed.
Field<ImportParams> gpus_per_node_field() {
  return {"gpus_per_node",
          [](const Params& section, ImportParams& p) {
            p.gpus_per_node =
                section.has("gpus_per_node") ? section.get_positive<int>("gpus_per_node") : 0;
          },
          [](const Params& context, const ImportParams& p) {
            if (p.gpus_per_node < 0) context.fail("gpus_per_node", "must not be negative");
          },
          [](const ImportParams& p) -> std::optional<TopologySetting> {
            if (p.gpus_per_node == 0) return std::nullopt;
            return TopologySetting{"gpus_per_node", std::to_string(p.gpus_per_node), {}};
          }};
}

const std::vector<Field<ImportParams>>& fields() {
  using P = ImportParams;
  static const std::vector<Field<P>> all{
      {"path", [](const Params& section, P& p) { p.path = resolved_path(section); },
       [](const Params& context, const P& p) {
         if (p.path.empty())
           context.fail("path", "is missing"); // a struct made in code that names no file
       },
       [](const P& p) {
         return std::optional(TopologySetting{"path", p.path, {}});
       }},
      field("format", Rule::any, &P::format),
      gpus_per_node_field(),
      field("route_cache_mib", Rule::positive, &P::route_cache_mib),
      field("nvswitch_planes", Rule::positive, &P::nvswitch_planes),
  };
  return all;
}

} // namespace

ImportParams parse_import(const Params& section) {
  ImportParams p = read_fields(section, fields(), ImportParams{});
  (void)graph_format(p, &section);
  return p;
}

Topology build_imported(const ImportParams& p) {
  check_fields(code_context("ImportParams"), fields(), p);
  return import_topology(p);
}

std::vector<TopologySetting> import_settings(const ImportParams& p) {
  return settings_of(fields(), p);
}

} // namespace trainsim::topo
