#include "topologies/storage.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "topologies/build.hpp"
#include "topologies/shortest_path.hpp"

namespace trainsim::topo {
namespace {

// The job's own pairs keep the job's routes (same link ids: the storage tier's come after);
// a pair with a storage server takes a shortest path over the switches, computed from the
// server's end (one tree per server, however many GPUs write) and turned around.
class StorageRouter final : public Router {
public:
  // One tree per server, 4 bytes a vertex: 1 GiB is a budget, not what 16 servers use.
  explicit StorageRouter(const Topology& job) : job_(job), to_storage_(size_t{1} << 30, false) {}

  void route(const Topology& t, int src, int dst, std::vector<Hop>& out) const override {
    int gpus = job_.gpu_count();
    if (src < gpus && dst < gpus) return job_.route(src, dst, out);
    if (src >= gpus) return to_storage_.route(t, src, dst, out);
    size_t first = out.size();
    to_storage_.route(t, dst, src, out);
    std::reverse(out.begin() + static_cast<long>(first), out.end());
    for (size_t i = first; i < out.size(); ++i) out[i].forward = !out[i].forward;
  }

private:
  const Topology& job_;
  ShortestPathRouter to_storage_;
};

// The network switches of `level`, or of the highest level there is where it is 0.
std::vector<Vertex> switches_at(const Graph& g, int level) {
  if (level == 0)
    for (auto v : boost::make_iterator_range(boost::vertices(g)))
      if (g[v].kind == VertexKind::net_switch) level = std::max(level, g[v].level);
  std::vector<Vertex> out;
  for (auto v : boost::make_iterator_range(boost::vertices(g)))
    if (g[v].kind == VertexKind::net_switch && g[v].level == level) out.push_back(v);
  return out;
}

// GPU -> host -> switch -> server, by arithmetic on the dense ids storage_network() lays out;
// a server's route to a GPU is the reverse, and GPUs of two hosts meet at the switch.
class StorageNetworkRouter final : public Router {
public:
  explicit StorageNetworkRouter(const StorageNetwork& n) : n_(n) {}

  void route(const Topology&, int src, int dst, std::vector<Hop>& out) const override {
    if (src < n_.gpus) return from_gpu(src, dst, out);
    if (dst >= n_.gpus) { // server to server, through the switch
      out.push_back(Hop{server_link(src), true});
      out.push_back(Hop{server_link(dst), false});
      return;
    }
    size_t first = out.size();
    from_gpu(dst, src, out);
    std::reverse(out.begin() + static_cast<long>(first), out.end());
    for (size_t i = first; i < out.size(); ++i) out[i].forward = !out[i].forward;
  }

private:
  // Hops go forward from the lower vertex id: GPUs, then servers, then hosts, then the switch.
  void from_gpu(int src, int dst, std::vector<Hop>& out) const {
    int host = src / n_.gpus_per_host;
    out.push_back(Hop{src, true});
    if (dst < n_.gpus && dst / n_.gpus_per_host == host) {
      out.push_back(Hop{dst, false});
      return;
    }
    out.push_back(Hop{host_link(host), true});
    if (dst >= n_.gpus) {
      out.push_back(Hop{server_link(dst), false});
      return;
    }
    out.push_back(Hop{host_link(dst / n_.gpus_per_host), false});
    out.push_back(Hop{dst, false});
  }
  [[nodiscard]] int host_link(int host) const { return n_.gpus + host; }
  [[nodiscard]] int server_link(int rank) const { return n_.gpus + n_.hosts() + (rank - n_.gpus); }

  StorageNetwork n_;
};

} // namespace

Topology storage_network(const StorageNetwork& n) {
  auto g = std::make_unique<Graph>();
  int hosts = n.hosts();
  Vertex gpus = add_vertices(*g, VertexKind::gpu, 0, n.gpus);
  Vertex servers = add_vertices(*g, VertexKind::gpu, 0, n.servers);
  for (int i = 0; i < n.servers; ++i) (*g)[servers + static_cast<Vertex>(i)].index = n.gpus + i;
  Vertex first_host = add_vertices(*g, VertexKind::nic, 0, hosts);
  Vertex sw = add_vertices(*g, VertexKind::net_switch, 1, 1);
  for (int r = 0; r < n.gpus; ++r)
    add_link(*g, gpus + static_cast<Vertex>(r),
             first_host + static_cast<Vertex>(r / n.gpus_per_host), n.gpu_link, n.latency,
             Tier::host);
  for (int h = 0; h < hosts; ++h)
    add_link(*g, first_host + static_cast<Vertex>(h), sw, n.host_nics, n.latency, Tier::leaf);
  for (int i = 0; i < n.servers; ++i)
    add_link(*g, servers + static_cast<Vertex>(i), sw, n.per_server, n.latency, Tier::leaf);
  return {std::move(g), std::make_unique<StorageNetworkRouter>(n), n.gpus_per_host};
}

Topology with_storage(const Topology& job, int nodes, BytesPerSecond per_node, Seconds latency,
                      int level) {
  auto g = std::make_unique<Graph>(job.graph());
  // The job's links as it has them (degraded ones included: the copy of the graph has them).
  std::vector<Vertex> tops = switches_at(*g, level);
  if (tops.empty()) {
    static const char* const kTiers[] = {"network", "leaf", "spine", "core"};
    throw std::invalid_argument(std::string("the fabric has no ") + kTiers[level] +
                                " switch to attach storage servers to");
  }
  Vertex first = add_vertices(*g, VertexKind::gpu, 0, nodes);
  for (int i = 0; i < nodes; ++i) {
    Vertex server = first + static_cast<Vertex>(i);
    (*g)[server].index = job.gpu_count() + i;
    // The server's link, counted as the fabric's edge tier (a NIC into a switch).
    add_link(*g, server, tops[static_cast<size_t>(i) % tops.size()], per_node, latency, Tier::leaf);
  }
  Topology out(std::move(g), std::make_unique<StorageRouter>(job), job.gpus_per_node());
  std::vector<int> failed;
  for (int id = 0; id < job.link_count(); ++id)
    if (job.link_failed(id)) failed.push_back(id);
  out.fail_links(failed); // the servers' routes avoid them too
  return out;
}

} // namespace trainsim::topo
