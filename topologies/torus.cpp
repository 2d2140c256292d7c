#include "topologies/torus.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "topologies/build.hpp"
#include "topologies/fields.hpp"
#include "topologies/hash.hpp"

namespace trainsim::topo {
namespace {

class TorusRouter final : public Router {
public:
  TorusRouter(std::vector<int> dims, std::vector<int> plus_link)
      : dims_(std::move(dims)), plus_link_(std::move(plus_link)) {}

  void route(const Topology&, int src, int dst, std::vector<Hop>& out) const override {
    int cur = src, stride = 1;
    std::uint64_t h = flow_hash(src, dst);
    for (size_t d = 0; d < dims_.size(); ++d) {
      int size = dims_[d];
      int delta = ((dst / stride) % size - (cur / stride) % size + size) % size;
      // Half way round both ways are shortest: the flow hash picks, so both directions carry load.
      bool plus = 2 * delta < size || (2 * delta == size && ((h >> d) & 1) != 0);
      cur =
          plus ? walk(cur, d, stride, delta, +1, out) : walk(cur, d, stride, size - delta, -1, out);
      stride *= size;
    }
  }

private:
  int walk(int cur, size_t d, int stride, int steps, int dir, std::vector<Hop>& out) const {
    for (int i = 0; i < steps; ++i) {
      int next = neighbour(cur, d, stride, dir);
      int link = plus_link_[static_cast<size_t>(dir > 0 ? cur : next) * dims_.size() + d];
      out.push_back(hop(link, static_cast<Vertex>(cur), static_cast<Vertex>(next)));
      cur = next;
    }
    return cur;
  }
  [[nodiscard]] int neighbour(int v, size_t d, int stride, int dir) const {
    int size = dims_[d];
    int x = (v / stride) % size;
    return v + (((x + dir + size) % size) - x) * stride;
  }

  std::vector<int> dims_;
  std::vector<int> plus_link_; ///< per (vertex, dimension): the link to the + neighbour
};

constexpr const char* kDimsSyntax = "must be sizes >= 1 joined by 'x', e.g. 4x4x4";

std::vector<int> parse_dims(const Params& section) {
  std::string text = section.get<std::string>("dims");
  std::vector<int> dims;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (;;) {
    int v = 0;
    auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || v < 1) section.fail("dims", kDimsSyntax);
    dims.push_back(v);
    p = next;
    if (p == end) break;
    if (*p++ != 'x') section.fail("dims", kDimsSyntax);
  }
  return dims;
}

// What a torus needs of its dims, read or made in code; `context` names where they came from.
void check_dims(const Params& context, const std::vector<int>& dims) {
  if (std::any_of(dims.begin(), dims.end(), [](int s) { return s < 1; }))
    context.fail("dims", kDimsSyntax);
  if (dims.size() != 2 && dims.size() != 3) context.fail("dims", "must have 2 or 3 dimensions");
  double gpus = std::accumulate(dims.begin(), dims.end(), 1.0, std::multiplies<>());
  if (gpus < 2) context.fail("dims", "needs at least 2 GPUs");
  check_gpu_count(context, "dims", gpus);
}

std::string dims_text(const std::vector<int>& dims) {
  std::string text;
  for (int s : dims) {
    if (!text.empty()) text += 'x';
    text += std::to_string(s);
  }
  return text;
}

const std::vector<Field<TorusParams>>& fields() {
  using P = TorusParams;
  static const std::vector<Field<P>> all{
      {"dims",
       [](const Params& section, P& p) {
         p.dims = parse_dims(section);
         check_dims(section, p.dims);
       },
       [](const Params& context, const P& p) { check_dims(context, p.dims); },
       [](const P& p) {
         return std::optional(TopologySetting{"dims", dims_text(p.dims), {}});
       }},
      field("link_bandwidth", Rule::positive, &P::link_bandwidth),
      field("link_latency", Rule::not_negative, &P::link_latency),
  };
  return all;
}

FabricFacts facts_of(const TorusParams& p, int gpus) {
  FabricFacts f;
  for (int s : p.dims) f.diameter += s / 2;
  // Halving the largest ring cuts each of its gpus / s rings twice (once when s == 2).
  int s = *std::max_element(p.dims.begin(), p.dims.end());
  int rings = gpus / s;
  f.bisection = p.link_bandwidth * (s == 1 ? 0.0 : s == 2 ? rings : 2.0 * rings);
  return f;
}

} // namespace

TorusParams parse_torus(const Params& section) {
  return read_fields(section, fields(), TorusParams{});
}

std::vector<TopologySetting> torus_settings(const TorusParams& p) {
  return settings_of(fields(), p);
}

TopologySize torus_size(const TorusParams& p) {
  check_fields(code_context("TorusParams"), fields(), p);
  double gpus = std::accumulate(p.dims.begin(), p.dims.end(), 1.0, std::multiplies<>());
  double links = 0;
  for (int s : p.dims)
    links += s == 1 ? 0.0 : s == 2 ? gpus / 2 : gpus; // gpus / s rings of s (or 1) links
  return {gpus, gpus, links};
}

Topology build_torus(const TorusParams& p) {
  check_fields(code_context("TorusParams"), fields(), p);
  int gpus = std::accumulate(p.dims.begin(), p.dims.end(), 1, std::multiplies<>());
  auto dims = p.dims.size();
  auto g = std::make_unique<Graph>();
  add_vertices(*g, VertexKind::gpu, 0, gpus);
  std::vector<int> plus_link(static_cast<size_t>(gpus) * dims, -1);
  int stride = 1;
  for (size_t d = 0; d < dims; ++d) {
    int size = p.dims[d];
    for (int v = 0; v < gpus && size > 1; ++v) {
      int x = (v / stride) % size;
      int next = v + ((x + 1) % size - x) * stride;
      // A ring of two has one link: the + link of x = 1 is the + link of x = 0.
      if (size == 2 && x == 1) continue;
      plus_link[static_cast<size_t>(v) * dims + d] =
          add_link(*g, static_cast<Vertex>(v), static_cast<Vertex>(next), p.link_bandwidth,
                   p.link_latency, Tier::direct);
      if (size == 2)
        plus_link[static_cast<size_t>(next) * dims + d] =
            plus_link[static_cast<size_t>(v) * dims + d];
    }
    stride *= size;
  }
  auto router = std::make_unique<TorusRouter>(p.dims, std::move(plus_link));
  return Topology(std::move(g), std::move(router), 1, facts_of(p, gpus));
}

} // namespace trainsim::topo
