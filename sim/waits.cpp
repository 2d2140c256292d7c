#include "sim/waits.hpp"

#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/critical_path.hpp"

namespace trainsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

struct Note {
  const sg4::Comm* comm = nullptr;
  const char* verb = "";
};

// By actor pid. One per process: SimGrid 3.32 runs one engine per process, and trainsim runs
// each simulation in a child process of its own (sim/child_process.hpp).
std::vector<Note>& notes() {
  static std::vector<Note> by_pid;
  return by_pid;
}

} // namespace

void wait_on(const sg4::CommPtr& comm, const char* verb) {
  auto pid = static_cast<size_t>(sg4::this_actor::get_pid());
  std::vector<Note>& all = notes();
  if (pid >= all.size()) all.resize(pid + 1);
  all[pid] = {comm.get(), verb};
  double since = sg4::Engine::get_clock();
  comm->wait();
  all[pid] = {}; // the vector may have grown meanwhile: index again
  if (critical_path::on()) critical_path::completed(*comm, since);
}

std::string waiting_on(long pid) {
  const std::vector<Note>& all = notes();
  if (pid < 0 || static_cast<size_t>(pid) >= all.size()) return "";
  const Note& n = all[static_cast<size_t>(pid)];
  if (n.comm == nullptr || n.comm->get_mailbox() == nullptr) return "";
  return std::string(n.verb) + " " + n.comm->get_mailbox()->get_name();
}

} // namespace trainsim::sim
