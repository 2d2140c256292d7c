// One declaration per key of a generator's section: its name, the member it sets and the rule
// its value obeys. The same table reads the section (parse_topology), checks a struct made in
// code (topology_size, build_topology) and lists the resolved values (topology_settings), so
// reading, checking and describing cannot disagree about a key. Internal to topologies/.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "models/params.hpp"
#include "topologies/spec.hpp"

namespace trainsim::topo {

enum class Rule {
  any,          ///< any value of the type
  positive,     ///< > 0 ("must be greater than zero")
  not_negative, ///< >= 0 ("must not be negative"): latencies, the radix
  required,     ///< > 0, and the section must give it
};

template <class P>
struct Field {
  std::string key;
  std::function<void(const Params& section, P& p)> read; ///< p's value is the default
  std::function<void(const Params& context, const P& p)>
      check; ///< fails as reading that value would
  std::function<std::optional<TopologySetting>(const P& p)> setting;
};

/// Where the messages about a struct made in code point: the struct, as it has no file.
inline Params code_context(const char* struct_name) { return Params(struct_name, "", {}); }

namespace field_detail {

template <class T>
double sign_of(const T& v) {
  if constexpr (std::is_arithmetic_v<T>)
    return static_cast<double>(v);
  else
    return v.value();
}

template <class T>
T read_value(const Params& section, const std::string& key, Rule rule, T fallback) {
  if constexpr (std::is_same_v<T, std::string>) {
    return rule == Rule::required ? section.get<T>(key) : section.get_or(key, fallback);
  } else {
    if (rule == Rule::required) return section.get_positive<T>(key);
    if (rule == Rule::positive) return section.get_positive_or(key, fallback);
    T v = section.get_or(key, fallback);
    if (rule == Rule::not_negative && !(sign_of(v) >= 0)) section.fail(key, "must not be negative");
    return v;
  }
}

template <class T>
void check_value(const Params& context, const std::string& key, Rule rule, const T& v) {
  if constexpr (!std::is_same_v<T, std::string>) {
    bool positive = rule == Rule::positive || rule == Rule::required;
    if (positive && !(sign_of(v) > 0)) context.fail(key, "must be greater than zero");
    if (rule == Rule::not_negative && !(sign_of(v) >= 0)) context.fail(key, "must not be negative");
  }
}

template <class T>
TopologySetting setting_of(const std::string& key, const T& v) {
  TopologySetting s{key, Params::text_of(v), {}};
  if constexpr (std::is_same_v<T, Seconds> || std::is_same_v<T, BytesPerSecond>) s.quantity = v;
  return s;
}

/// The field whose value is `at(p)`: a generic lambda returning a reference into p.
template <class P, class At>
Field<P> field_at(std::string key, Rule rule, At at) {
  return {key,
          [key, rule, at](const Params& section, P& p) {
            auto& value = at(p);
            value = read_value(section, key, rule, value);
          },
          [key, rule, at](const Params& context, const P& p) {
            check_value(context, key, rule, at(p));
          },
          [key, at](const P& p) { return std::optional(setting_of(key, at(p))); }};
}

} // namespace field_detail

/// The key `key` for the member `member` of P.
template <class P, class T>
Field<P> field(std::string key, Rule rule, T P::*member) {
  return field_detail::field_at<P>(
      std::move(key), rule, [member](auto& p) -> auto& { return p.*member; });
}

/// The key `key` for the member `member` of P's NodeParams `node`.
template <class P, class T>
Field<P> field(std::string key, Rule rule, NodeParams P::*node, T NodeParams::*member) {
  return field_detail::field_at<P>(
      std::move(key), rule, [ node, member ](auto& p) -> auto& { return (p.*node).*member; });
}

/// The node keys (docs/topologies.md, "Node keys") in the order they are read, appended to
/// `fields`. H is the struct holding the node members (P itself, or NodeParams); `make(key,
/// rule, member of H)` makes each one's Field<P>.
template <class H, class P, class Make>
void add_node_fields(std::vector<Field<P>>& fields, Make make) {
  fields.insert(fields.end(), {make("gpus_per_node", Rule::positive, &H::gpus_per_node),
                               make("nvlink_bandwidth", Rule::positive, &H::nvlink_bandwidth),
                               make("nvlink_latency", Rule::not_negative, &H::nvlink_latency),
                               make("pcie_bandwidth", Rule::positive, &H::pcie_bandwidth),
                               make("pcie_latency", Rule::not_negative, &H::pcie_latency),
                               make("nic_bandwidth", Rule::positive, &H::nic_bandwidth),
                               make("network_latency", Rule::not_negative, &H::network_latency)});
}

/// Reads every field from `section` over the defaults in `p`, then rejects unknown keys.
template <class P>
P read_fields(const Params& section, const std::vector<Field<P>>& fields, P p) {
  for (const Field<P>& f : fields) f.read(section, p);
  section.reject_unknown();
  return p;
}

/// Throws for the first field whose value breaks its rule, naming `context`.
template <class P>
void check_fields(const Params& context, const std::vector<Field<P>>& fields, const P& p) {
  for (const Field<P>& f : fields) f.check(context, p);
}

template <class P>
std::vector<TopologySetting> settings_of(const std::vector<Field<P>>& fields, const P& p) {
  std::vector<TopologySetting> out;
  for (const Field<P>& f : fields)
    if (std::optional<TopologySetting> s = f.setting(p)) out.push_back(std::move(*s));
  return out;
}

} // namespace trainsim::topo
