#include "sim/node_meetings.hpp"

#include "sim/critical_path.hpp"

namespace trainsim::sim {

// A barrier a meeting, not a suspended actor: SimGrid suspends a suspended actor's activities
// too, so a GPU waiting for its node would stall its posted pipeline receive. SimGrid runs one
// actor at a time and switches only at simcalls, so the slot needs no lock; it is dropped once
// the last actor has taken the barrier.
void NodeMeetings::meet(int node, std::int64_t k) {
  auto key = (static_cast<std::uint64_t>(node) << 32) | static_cast<std::uint64_t>(k);
  Slot& slot = slots_[key];
  if (!slot.barrier) slot.barrier = simgrid::s4u::Barrier::create(static_cast<unsigned>(actors_));
  simgrid::s4u::BarrierPtr barrier = slot.barrier;
  if (++slot.arrived == actors_) slots_.erase(key);
  critical_path::Ticket ticket = critical_path::arriving(barrier.get(), actors_, "tp");
  barrier->wait();
  critical_path::left(ticket);
}

} // namespace trainsim::sim
