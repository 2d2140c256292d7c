#include "sim/simulation.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include "models/error.hpp"
#include "sim/child_process.hpp"
#include "sim/critical_path.hpp"
#include "sim/gpu_actor.hpp"
#include "sim/log.hpp"
#include "sim/progress.hpp"
#include "sim/rail_bundle.hpp"
#include "sim/replica_bundle.hpp"
#include "sim/traffic.hpp"
#include "sim/waits.hpp"

namespace trainsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

// SimGrid 3.32's Engine::run() returns normally when every remaining actor is blocked, after
// dumping kernel internals to stderr: the step would then be reported from half-finished ranks.
// The watch turns that into an error that says which actors wait on what (sim/waits.hpp).
class DeadlockWatch {
public:
  DeadlockWatch() {
    if (std::getenv("TRAINSIM_SIMGRID_LOG") == nullptr) { // keep the dump when debugging the engine
      xbt_log_control_set("ker_engine.app:file:/dev/null");
      xbt_log_control_set("ker_engine.add:off");
    }
    sg4::Actor::on_creation_cb([this](sg4::Actor&) { ++created_; });
    // Thrown out of Engine::run(), before SimGrid kills the blocked actors and prints its
    // own account of them.
    sg4::Engine::on_deadlock_cb([this] { throw Error(ExitCode::simulation, describe()); });
  }

private:
  // "gpu3 waits to receive on 3.tp"
  static std::string waiting(const sg4::Actor& actor) {
    std::string on = waiting_on(actor.get_pid());
    return std::string(actor.get_cname()) + " waits " +
           (on.empty() ? "on something other than a message" : on);
  }
  std::string describe() const {
    std::vector<sg4::ActorPtr> blocked = sg4::Engine::get_instance()->get_all_actors();
    std::sort(blocked.begin(), blocked.end(),
              [](const auto& a, const auto& b) { return a->get_pid() < b->get_pid(); });
    std::string line = "simulation deadlocked: " + std::to_string(blocked.size()) + " of " +
                       std::to_string(created_) +
                       " actors wait forever (a collective or transfer whose peers never arrive): ";
    constexpr size_t kShown = 6; // one line, even at 100k ranks
    for (size_t i = 0; i < std::min(blocked.size(), kShown); ++i)
      line += (i ? ", " : "") + waiting(*blocked[i]);
    if (blocked.size() > kShown)
      line += ", and " + std::to_string(blocked.size() - kShown) + " more";
    return line;
  }

  long created_ = 0;
};

} // namespace

std::string run_isolated(const topo::Topology& topology, const GpuSpec& gpu,
                         const std::function<std::string(Platform&)>& body,
                         const RailBundle* bundle, bool shared_links) {
  return run_in_child<std::string>([&] {
    int argc = 1;
    char name[] = "trainsim";
    char* argv[] = {name, nullptr};
    sg4::Engine engine(&argc, argv);
    configure_engine();
    DeadlockWatch deadlock; // throws out of the body's Engine::run() on a deadlock
    Platform platform(topology, gpu, bundle, shared_links);
    return body(platform);
  });
}

namespace {

// Both ends of the pipe are this same binary, so raw values need no portable encoding.
template <class T>
void append(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <class T>
void take(std::string_view& in, T& value) {
  std::memcpy(&value, in.data(), sizeof value);
  in.remove_prefix(sizeof value);
}

template <class T>
void append_vector(std::string& out, const std::vector<T>& v) {
  append(out, v.size());
  if (!v.empty()) out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <class T>
void take_vector(std::string_view& in, std::vector<T>& v) {
  size_t size = 0;
  take(in, size);
  v.resize(size);
  if (size > 0) std::memcpy(v.data(), in.data(), size * sizeof(T)); // data() may be null when empty
  in.remove_prefix(size * sizeof(T));
}

std::string encode(const SimResult& r) {
  std::string out;
  append(out, r.step_time);
  append(out, r.rail_bundle);
  append(out, r.rail_leader);
  append_vector(out, r.own_rails);
  append(out, r.replica_bundle);
  append(out, r.counters);
  append_vector(out, r.ranks);
  append_vector(out, r.channel_bytes);
  append_vector(out, r.trace);
  append_vector(out, r.critical_path);
  return out;
}

SimResult decode(std::string_view in) {
  SimResult r;
  take(in, r.step_time);
  take(in, r.rail_bundle);
  take(in, r.rail_leader);
  take_vector(in, r.own_rails);
  take(in, r.replica_bundle);
  take(in, r.counters);
  take_vector(in, r.ranks);
  take_vector(in, r.channel_bytes);
  take_vector(in, r.trace);
  take_vector(in, r.critical_path);
  return r;
}

std::uint64_t total_ops(const StepPlan& plan) {
  std::uint64_t per_pipeline = 0;
  for (const Program& p : plan.programs) per_pipeline += p.size();
  return per_pipeline * static_cast<std::uint64_t>(plan.layout.ranks_per_stage());
}

// Every GPU an actor: with rail bundling (rails > 1) each node's leader GPU runs the step for
// the healthy rails, the others wait for it to finish, and the own rails' GPUs run their own
// (sim/rail_bundle.hpp). With replica bundling only replica 0's GPUs are actors
// (sim/replica_bundle.hpp).
void create_actors(const StepPlan& plan, const std::vector<bool>& traced, SimResult& result) {
  const Platform& platform = plan.platform;
  const RailBundle& bundle = plan.bundle;
  std::vector<sg4::ActorPtr> leaders(static_cast<size_t>(plan.scenario.execution.gpus()));
  auto in_run = [&](int r) { return plan.replicas == 1 || plan.layout.coords(r).dp == 0; };
  for (int r = 0; r < plan.scenario.execution.gpus(); ++r) {
    if (!in_run(r) || (bundle.rails > 1 && !bundle.leads(r) && !bundle.runs_own(r))) continue;
    leaders[static_cast<size_t>(r)] = sg4::Actor::create(
        "gpu" + std::to_string(r), platform.host(r),
        GpuActor(plan, r, result.ranks[static_cast<size_t>(r)], result.counters,
                 traced[static_cast<size_t>(r)] ? &result.trace : nullptr));
  }
  for (int r = 0; r < plan.scenario.execution.gpus() && bundle.rails > 1; ++r) {
    if (!in_run(r) || leaders[static_cast<size_t>(r)]) continue;
    sg4::ActorPtr leader = leaders[static_cast<size_t>(bundle.leader_of(r))];
    sg4::Actor::create("gpu" + std::to_string(r), platform.host(r), [leader] { leader->join(); });
  }
}

struct Symmetries {
  RailBundle rails; ///< sim/rail_bundle.hpp
  int replicas = 1; ///< sim/replica_bundle.hpp
};

SimResult run_step(const Scenario& scenario, const Platform& platform, const SimOptions& options,
                   Symmetries by) {
  StepPlan plan(scenario, platform, options.fidelity);
  plan.bundle = by.rails;
  plan.replicas = by.replicas;
  std::optional<NodeMeetings> meetings;
  if (!by.rails.own.empty()) plan.meetings = &meetings.emplace(by.rails.actors_per_node());
  plan.shared_links = options.shared_links;
  Progress progress(total_ops(plan) * static_cast<std::uint64_t>(by.rails.actors_per_node()) /
                    static_cast<std::uint64_t>(by.rails.rails * by.replicas));
  Traffic traffic(scenario.execution.gpus());
  if (options.link_stats) plan.traffic = &traffic;
  if (options.progress) plan.progress = &progress;
  plan.traced.assign(static_cast<size_t>(scenario.execution.gpus()), false);
  for (int r : options.trace_ranks)
    if (r >= 0 && r < scenario.execution.gpus()) plan.traced[static_cast<size_t>(r)] = true;
  if (options.critical_path) critical_path::enable(scenario.execution.gpus());
  SimResult result;
  result.rail_bundle = by.rails.rails;
  result.rail_leader = by.rails.leader;
  result.own_rails = by.rails.own;
  result.replica_bundle = by.replicas;
  result.ranks.resize(static_cast<size_t>(scenario.execution.gpus()));
  std::vector<bool> traced =
      by.replicas > 1 ? traced_in_replica0(plan.layout, plan.traced) : plan.traced;
  create_actors(plan, by.rails.rails > 1 ? traced_leaders(by.rails, traced) : traced, result);
  auto log = logger("trainsim.sim");
  log->debug("{} GPUs, {} program ops per pipeline, rails bundled: {}, replicas bundled: {}",
             scenario.execution.gpus(),
             total_ops(plan) / scenario.execution.gpus() * scenario.execution.pp, by.rails.rails,
             by.replicas);
  sg4::Engine::get_instance()->run();
  progress.finish();
  if (options.critical_path) result.critical_path = critical_path::of_step(result.ranks, platform);
  log->debug("engine done at {} s simulated: {} execs, {} comms", sg4::Engine::get_clock(),
             result.counters.execs, result.counters.comms);
  if (by.rails.rails > 1) {
    mirror_rails(by.rails, traced, result);
    traffic.mirror_rails(by.rails);
  }
  if (by.replicas > 1) mirror_replicas(plan.layout, plan.traced, result);
  for (const RankStats& s : result.ranks) result.step_time = std::max(result.step_time, s.finish);
  if (options.link_stats) result.channel_bytes = traffic.channel_bytes(platform.topology());
  return result;
}

} // namespace

SimResult simulate(const Scenario& scenario, const topo::Topology& topology,
                   const SimOptions& options) {
  Symmetries by{rail_bundle_of(scenario, topology, options),
                replica_bundle(scenario, topology, options)};
  return decode(run_isolated(
      topology, scenario.system.gpu,
      [&](Platform& platform) { return encode(run_step(scenario, platform, options, by)); },
      &by.rails, options.shared_links));
}

} // namespace trainsim::sim
