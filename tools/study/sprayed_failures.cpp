#include "tools/study/sprayed_failures.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <variant>

#include <boost/range/iterator_range.hpp>

#include "models/error.hpp"
#include "tools/study/link_faults.hpp"

namespace trainsim {
namespace {

// "spine12" -> 12 where `name` is `kind` followed by digits only.
std::optional<int> numbered(const std::string& name, const std::string& kind) {
  if (name.rfind(kind, 0) != 0 || name.size() == kind.size()) return std::nullopt;
  int n = 0;
  for (size_t k = kind.size(); k < name.size(); ++k) {
    if (name[k] < '0' || name[k] > '9' || n > 100'000'000) return std::nullopt;
    n = n * 10 + (name[k] - '0');
  }
  return n;
}

} // namespace

SprayedFailures::SprayedFailures(const Scenario& s, const topo::Topology& t) : s_(s), t_(t) {
  const auto& p = std::get<topo::FatTreeParams>(s.system.topology.params);
  up_ = static_cast<int>(std::floor(p.leaf_down_ports / p.oversubscription));
  for (auto v : boost::make_iterator_range(boost::vertices(t.graph())))
    pods_ += t.graph()[v].kind == topo::VertexKind::net_switch && t.graph()[v].level == 2;
  cores_per_plane_ = pods_ > 1 ? p.radix / 2 : 0;
}

// The merged link between the vertices named `a` and `b`, or -1.
int SprayedFailures::merged_link(const std::string& a, const std::string& b) const {
  for (int id = 0; id < t_.link_count(); ++id)
    if (link_named(t_, id, a + "-" + b)) return id;
  return -1;
}

void SprayedFailures::lose(int link, int cable, size_t entry) {
  lost_.insert({link, cable});
  last_entry_[link] = entry;
}

void SprayedFailures::add(size_t i) {
  const FailedPart& part = s_.faults.failed[i];
  auto refuse = [&](const std::string& why) {
    throw InputError(s_.file, failed_key(i, part), part.name, why);
  };
  int spines = pods_ * up_, cores = up_ * cores_per_plane_;
  std::string range = "spine0 to spine" + std::to_string(spines - 1) +
                      (cores > 0 ? ", core0 to core" + std::to_string(cores - 1) : "") +
                      ", numbered as a fabric that builds every cable numbers them";
  auto spine = [&](const std::string& name) {
    std::optional<int> n = numbered(name, "spine");
    if (!n || *n >= spines) refuse("is not a spine of this sprayed fabric (" + range + ")");
    return *n;
  };
  auto core = [&](const std::string& name) {
    std::optional<int> n = numbered(name, "core");
    if (!n || *n >= cores) refuse("is not a core switch of this sprayed fabric (" + range + ")");
    return *n;
  };
  // The merged spine of spine N's pod, and its merged core link.
  auto merged_spine = [&](int n) { return "spine" + std::to_string(n / up_); };
  auto core_link = [&](int n) { return merged_link(merged_spine(n), "core0"); };
  if (part.which == FailedPart::Which::network_switch) {
    if (part.name.rfind("core", 0) == 0) {
      int m = core(part.name);
      for (int pod = 0; pod < pods_; ++pod) lose(core_link(pod * up_), m, i);
      return;
    }
    int n = spine(part.name);
    std::string pod_spine = merged_spine(n);
    for (int id = 0; id < t_.link_count(); ++id) {
      auto [x, y] = t_.link_ends(id);
      bool leaf = t_.graph()[x].level == 1 || t_.graph()[y].level == 1;
      if (leaf && (t_.vertex_name(x) == pod_spine || t_.vertex_name(y) == pod_spine))
        lose(id, n % up_, i);
    }
    for (int c = 0; c < cores_per_plane_; ++c)
      lose(core_link(n), (n % up_) * cores_per_plane_ + c, i);
    return;
  }
  size_t dash = part.name.find('-');
  std::string a = part.name.substr(0, dash), b = part.name.substr(dash + 1);
  if (a.rfind("spine", 0) == 0 && b.rfind("spine", 0) != 0) std::swap(a, b);
  int n = spine(b.rfind("spine", 0) == 0 ? b : a);
  if (a.rfind("core", 0) == 0 || b.rfind("core", 0) == 0) {
    int m = core(a.rfind("core", 0) == 0 ? a : b);
    if (m / cores_per_plane_ != n % up_) refuse("is not a link of this fabric: spine" +
                                                std::to_string(n) + " reaches the cores of plane " +
                                                std::to_string(n % up_));
    return lose(core_link(n), m, i);
  }
  int id = merged_link(a, merged_spine(n));
  if (id < 0) refuse("is not a link of this fabric: " + a + " is not a leaf of spine" +
                     std::to_string(n) + "'s pod");
  lose(id, n % up_, i);
}

std::vector<std::pair<int, size_t>> SprayedFailures::apply(topo::Topology& t) const {
  std::map<int, int> cables;
  for (const auto& [link, cable] : lost_) cables[link] += 1;
  std::vector<std::pair<int, size_t>> failed;
  for (const auto& [link, n] : cables) {
    auto [x, y] = t.link_ends(link);
    bool core = t.graph()[x].level == 3 || t.graph()[y].level == 3;
    int width = core ? up_ * cores_per_plane_ : up_;
    if (n >= width)
      failed.emplace_back(link, last_entry_.at(link));
    else
      t.degrade_link(link, static_cast<double>(width - n) / width, Seconds(0));
  }
  return failed;
}

} // namespace trainsim
