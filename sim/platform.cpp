#include "sim/platform.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>

#include <cstdlib>
#include <malloc.h>
#include <xbt/log.h>

#include "models/check.hpp"

namespace trainsim::sim {
namespace {

namespace sg4 = simgrid::s4u;
namespace routing = simgrid::kernel::routing;

// What every route reports as its latency (s): one value for all, so that every flow has the
// same sharing penalty; the latency factor restores each route's own.
constexpr double kNominalLatency = 1.0;

// Routes are computed on demand from the topology graph: host NetPoint ids are GPU ranks
// (hosts are created in rank order and are the zone's only components).
class GraphZone final : public routing::NetZoneImpl {
public:
  GraphZone(const topo::Topology& topology, bool rail_quotient)
      : NetZoneImpl("cluster"), topology_(topology), rail_quotient_(rail_quotient) {}

  void add_channel_links(std::vector<sg4::Link*> links) { channels_ = std::move(links); }

  // Every route reports the same nominal latency to SimGrid and the real one through the
  // latency factor (latency_factor()): CM02 takes a flow's sharing penalty from the reported
  // latency, which would give a flow a share of a saturated link in inverse proportion to its
  // path's latency (TCP's RTT unfairness). InfiniBand's credit-based flow control arbitrates
  // among flows alike whatever their path (docs/fast-mode.md, "How flows share a link").
  void get_local_route(const routing::NetPoint* src, const routing::NetPoint* dst,
                       routing::Route* into, double* latency) override {
    hops_.clear();
    last_ = {static_cast<int>(src->id()), static_cast<int>(dst->id()), 0.0};
    topology_.route(last_.src, last_.dst, hops_);
    for (auto hop : hops_) {
      topo::Hop on = hop;
      if (rail_quotient_) on.link = topology_.router().rail_link(hop.link);
      into->link_list_.push_back(channels_[static_cast<size_t>(on.channel())]->get_impl());
      // Latency stays on our side: SimGrid's link implementation header is not installed.
      last_.latency += topology_.link(hop.link).latency.value();
    }
    if (latency != nullptr) *latency += kNominalLatency;
  }

  /// The factor that turns the nominal latency into the route's real one: SimGrid asks for it
  /// right after the route, whose latency is then at hand.
  double latency_factor(const sg4::Host* src, const sg4::Host* dst) {
    int s = static_cast<int>(src->get_netpoint()->id()),
        d = static_cast<int>(dst->get_netpoint()->id());
    if (s != last_.src || d != last_.dst) {
      routing::Route unused;
      get_local_route(src->get_netpoint(), dst->get_netpoint(), &unused, nullptr);
    }
    return last_.latency / kNominalLatency;
  }

  void get_graph(const s_xbt_graph_t*, std::map<std::string, xbt_node_t, std::less<>>*,
                 std::map<std::string, xbt_edge_t, std::less<>>*) override {}

private:
  const topo::Topology& topology_;
  bool rail_quotient_;
  std::vector<sg4::Link*> channels_;
  std::vector<topo::Hop> hops_;
  struct {
    int src = -1, dst = -1;
    double latency = 0; ///< s, the sum of the route's link latencies
  } last_;
};

} // namespace

void configure_engine() {
  // Quiet SimGrid: our own report says what matters, warnings and errors still show.
  xbt_log_control_set("root.thresh:warning");
  // For debugging the engine itself, e.g. TRAINSIM_SIMGRID_LOG="ker_lmm.thresh:debug".
  if (const char* extra = std::getenv("TRAINSIM_SIMGRID_LOG")) xbt_log_control_set(extra);
  // A GPU fabric is not TCP over a WAN: no latency/bandwidth corrections (LV08 multiplies
  // latency by 13), no TCP window cap on rate, no reverse flows per comm.
  sg4::Engine::set_config("network/model:CM02");
  // The cap is gamma / (2 x the reported latency), the nominal 1 s for every route (GraphZone):
  // 5e17 B/s, beyond any link. 0 does not mean "no window" before SimGrid 3.34.
  sg4::Engine::set_config("network/TCP-gamma:1e18");
  sg4::Engine::set_config("network/crosstraffic:0");
  // Guard pages cost one memory mapping per actor; at ~32k actors the process would hit
  // vm.max_map_count. Lazily-zeroed mmap'ed stacks keep resident memory per actor small.
  sg4::Engine::set_config("contexts/guard-size:0");
  // 1 MiB stacks, not SimGrid's 8: an actor runs a flat loop of simcalls and never uses more
  // than a few KiB, and each stack is mapped, touched at both ends and unmapped once, so a
  // smaller span costs fewer page-table pages: the 100k reference step took 38 CPU s instead
  // of 44 (docs/performance.md), with the same resident memory.
  sg4::Engine::set_config("contexts/stack-size:1024");
  mallopt(M_MMAP_MAX, 1 << 22);
  // The stacks must come from mmap (zero pages, resident only when touched), never from the
  // heap (calloc'ed, so resident at once): they are at the mmap threshold, pinned at 1 MiB.
  // glibc raises its threshold to the size of any mmapped block freed earlier: a topology whose
  // link vector outgrew 8 MiB (~87k GPUs of one per node) had pushed it above the stack size,
  // and 88k actors took 12.9 GB, not 1.8.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
}

Platform::Platform(const topo::Topology& topology, const GpuSpec& gpu, bool rail_quotient,
                   bool shared_links)
    : topology_(topology), speed_((gpu.peak * gpu.matmul_efficiency).value()) {
  TRAINSIM_CHECK(!rail_quotient || topology.router().rail_symmetric(),
                 "a rail quotient of a fabric without rail symmetry");
  auto* zone = new GraphZone(topology, rail_quotient); // owned by the engine once created
  sg4::NetZone* iface = zone->get_iface();
  hosts_.reserve(static_cast<size_t>(topology.gpu_count()));
  for (int r = 0; r < topology.gpu_count(); ++r)
    hosts_.push_back(iface->create_host("gpu" + std::to_string(r), speed_));
  // The rail quotient needs only the links that stand for their orbits: an eighth of them.
  std::vector<sg4::Link*> channels(2 * static_cast<size_t>(topology.link_count()), nullptr);
  for (int id = 0; id < topology.link_count(); ++id) {
    if (rail_quotient && topology.router().rail_link(id) != id) continue;
    double bandwidth = topology.link(id).bandwidth.value();
    for (int direction : {0, 1}) {
      sg4::Link* link = iface->create_link(
          std::string("l").append(std::to_string(id)).append(direction ? "r" : "f"), bandwidth);
      if (!shared_links) link->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
      channels[2 * static_cast<size_t>(id) + static_cast<size_t>(direction)] = link->seal();
    }
  }
  channels_ = channels;
  zone->add_channel_links(std::move(channels));
  iface->get_network_model()->set_lat_factor_cb(
      [zone](double, const sg4::Host* src, const sg4::Host* dst, const std::vector<sg4::Link*>&,
             const std::unordered_set<sg4::NetZone*>&) { return zone->latency_factor(src, dst); });
  iface->seal();
}

} // namespace trainsim::sim
