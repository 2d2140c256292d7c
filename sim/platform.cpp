#include "sim/platform.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <malloc.h>
#include <xbt/log.h>

#include "models/check.hpp"
#include "sim/rail_bundle.hpp"

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
  GraphZone(const topo::Topology& topology, RailBundle bundle)
      : NetZoneImpl("cluster"), topology_(topology), bundle_(std::move(bundle)) {}

  /// By channel: every link, or the rail quotient's; with own rails, their own links and for
  /// each its copy of the quotient's links that the rails share.
  void add_channel_links(std::vector<sg4::Link*> links, std::vector<sg4::Link*> own,
                         std::vector<std::vector<sg4::Link*>> shared) {
    channels_ = std::move(links);
    own_ = std::move(own);
    shared_ = std::move(shared);
  }

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
    int own_rail = bundle_.runs_own(last_.src) ? bundle_.rail(last_.src) : -1;
    TRAINSIM_CHECK(bundle_.runs_own(last_.dst) == (own_rail >= 0),
                   "a flow between an own rail and the rails its leader stands for");
    for (auto hop : hops_) {
      add_links(hop, own_rail, into->link_list_);
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
  // Rail bundling (sim/rail_bundle.hpp): the leader's routes go over the links that stand for
  // their orbits, an own rail's over its own links and, where the rails share a link, over
  // its own copy of the orbit's link: there it meets its own flows as the leader meets the
  // healthy rails' (as if every rail ran as it does), and neither slows the other. Measured
  // against every rail's own flows in tests/sim/rail_bundle_test.cpp (PartialRailBundle).
  void add_links(topo::Hop hop, int own_rail,
                 std::vector<simgrid::kernel::resource::StandardLinkImpl*>& into) const {
    auto push = [&into](const std::vector<sg4::Link*>& links, topo::Hop on) {
      into.push_back(links[static_cast<size_t>(on.channel())]->get_impl());
    };
    if (bundle_.rails <= 1) return push(channels_, hop);
    const topo::Router& router = topology_.router();
    topo::Hop orbit{router.rail_link(hop.link), hop.forward};
    if (own_rail < 0) return push(channels_, orbit);
    int rail = router.rail_of_link(hop.link);
    if (rail < 0) {
      auto slot = std::lower_bound(bundle_.own.begin(), bundle_.own.end(), own_rail) -
                  bundle_.own.begin();
      return push(shared_[static_cast<size_t>(slot)], orbit);
    }
    TRAINSIM_CHECK(rail == own_rail, "an own rail's route crosses another rail's link");
    push(own_, hop);
  }

  const topo::Topology& topology_;
  RailBundle bundle_;
  std::vector<sg4::Link*> channels_, own_;
  std::vector<std::vector<sg4::Link*>> shared_;
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

namespace {

sg4::Link* make_link(sg4::NetZone* zone, const std::string& name, double bandwidth,
                     bool shared_links) {
  sg4::Link* link = zone->create_link(name, bandwidth);
  if (!shared_links) link->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
  return link->seal();
}

} // namespace

Platform::Platform(const topo::Topology& topology, const GpuSpec& gpu, const RailBundle* bundle,
                   bool shared_links)
    : topology_(topology), speed_((gpu.peak * gpu.matmul_efficiency).value()) {
  RailBundle rails = bundle != nullptr ? *bundle : RailBundle{};
  bool quotient = rails.rails > 1;
  const topo::Router& router = topology.router();
  TRAINSIM_CHECK(!quotient || router.rail_symmetric(),
                 "a rail quotient of a fabric without rail symmetry");
  auto* zone = new GraphZone(topology, rails); // owned by the engine once created
  sg4::NetZone* iface = zone->get_iface();
  hosts_.reserve(static_cast<size_t>(topology.gpu_count()));
  for (int r = 0; r < topology.gpu_count(); ++r)
    hosts_.push_back(iface->create_host("gpu" + std::to_string(r), speed_));
  // The rail quotient needs only the links that stand for their orbits: an eighth of them; and
  // for each own rail its own links and a copy of the orbit links that the rails share.
  auto channels_count = 2 * static_cast<size_t>(topology.link_count());
  bool partial = !rails.own.empty();
  std::vector<sg4::Link*> channels(channels_count, nullptr), own;
  std::vector<std::vector<sg4::Link*>> shared(rails.own.size());
  // A degraded link must not slow the healthy rails its orbit's standing link stands for.
  std::vector<double> healthy = partial ? orbit_best(topology).bandwidth : std::vector<double>{};
  if (partial) own.assign(channels_count, nullptr);
  for (auto& copy : shared) copy.assign(channels_count, nullptr);
  for (int id = 0; id < topology.link_count(); ++id) {
    bool stands = !quotient || router.rail_link(id) == id;
    int rail = partial ? router.rail_of_link(id) : 0;
    double bandwidth = topology.link(id).bandwidth.value();
    double orbit = partial ? healthy[static_cast<size_t>(id)] : bandwidth;
    for (int direction : {0, 1}) {
      std::string name = std::to_string(id).append(direction ? "r" : "f");
      auto channel = 2 * static_cast<size_t>(id) + static_cast<size_t>(direction);
      if (stands) channels[channel] = make_link(iface, "l" + name, orbit, shared_links);
      if (rail >= 0 && partial && rails.runs_own(rail))
        own[channel] = make_link(iface, "o" + name, bandwidth, shared_links);
      for (size_t k = 0; stands && rail < 0 && k < shared.size(); ++k)
        shared[k][channel] =
            make_link(iface, "s" + std::to_string(k) + "." + name, orbit, shared_links);
    }
  }
  channels_ = channels;
  zone->add_channel_links(std::move(channels), std::move(own), std::move(shared));
  iface->get_network_model()->set_lat_factor_cb(
      [zone](double, const sg4::Host* src, const sg4::Host* dst, const std::vector<sg4::Link*>&,
             const std::unordered_set<sg4::NetZone*>&) { return zone->latency_factor(src, dst); });
  iface->seal();
}

Seconds Platform::idle_time(const sg4::Host* from, const sg4::Host* to, double bytes,
                            double rate) const {
  // The bandwidths are the SimGrid links' (a rail quotient's stand for their orbits); the
  // latency is the graph route's, as SimGrid's own route reports the nominal one (GraphZone).
  std::vector<sg4::Link*> links;
  double nominal = 0;
  from->route_to(to, links, &nominal);
  double narrowest = rate > 0 ? rate : std::numeric_limits<double>::infinity();
  for (const sg4::Link* link : links) narrowest = std::min(narrowest, link->get_bandwidth());
  std::vector<topo::Hop> hops;
  topology_.route(static_cast<int>(from->get_netpoint()->id()),
                  static_cast<int>(to->get_netpoint()->id()), hops);
  Seconds latency{};
  for (const topo::Hop& hop : hops) latency += topology_.link(hop.link).latency;
  return latency + Seconds(std::isinf(narrowest) ? 0.0 : bytes / narrowest);
}

} // namespace trainsim::sim
