#include "sim/collective_run.hpp"

#include <algorithm>
#include <cstring>

#include <simgrid/s4u.hpp>

#include "sim/platform.hpp"
#include "sim/simulation.hpp"
#include "topologies/group_paths.hpp"

namespace trainsim::sim {

CollectiveOutcome simulate_collective(const topo::Topology& topology, const CollectiveCall& call) {
  namespace sg4 = simgrid::s4u;
  std::string bytes = run_isolated(topology, GpuSpec{}, [&](Platform& platform) {
    Mailboxes mailboxes(topology.gpu_count());
    Counters counters;
    GroupPaths paths(topo::pair_costs(topology));
    auto algorithm = make_collective(call.algorithm);
    CollectiveEnv env{.fidelity = call.fidelity,
                      .mailboxes = &mailboxes,
                      .topology = &topology,
                      .paths = &paths,
                      .counters = &counters,
                      .nvlink = call.nvlink,
                      .in_rounds = call.in_rounds,
                      .routing = call.routing};
    CollectiveOutcome out;
    const GroupSpan& g = call.group;
    int callers = call.callers < 0 ? g.size : call.callers;
    for (int i = 0; i < g.size; ++i)
      sg4::Actor::create("gpu" + std::to_string(g.member(i)), platform.host(g.member(i)), [&, i] {
        if (i >= callers) return;
        CollectiveEnv mine = env;
        mine.rank = g.member(i);
        algorithm->run_repeated(call.op,
                                make_group(g.base, g.stride, g.size, i, call.channel, topology),
                                call.bytes, call.count, mine);
        out.finish = std::max(out.finish, Seconds(sg4::Engine::get_clock()));
        out.returned += 1;
      });
    sg4::Engine::get_instance()->run();
    out.comms = counters.comms;
    return std::string(reinterpret_cast<const char*>(&out), sizeof out);
  });
  CollectiveOutcome out;
  std::memcpy(&out, bytes.data(), sizeof out);
  return out;
}

} // namespace trainsim::sim
