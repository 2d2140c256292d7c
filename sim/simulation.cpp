#include "sim/simulation.hpp"

#include <cerrno>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/s4u.hpp>

#include "models/error.hpp"
#include "sim/gpu_actor.hpp"

namespace trainsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

SimResult run_engine(const Scenario& scenario, const topo::Topology& topology, const SimOptions& options) {
  int argc = 1;
  char name[] = "trainsim";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  configure_engine();
  Platform platform(topology, scenario.system.gpu);
  StepPlan plan(scenario, platform, options.fidelity);
  SimResult result;
  result.ranks.resize(static_cast<size_t>(scenario.execution.gpus()));
  for (int r = 0; r < scenario.execution.gpus(); ++r)
    sg4::Actor::create("gpu" + std::to_string(r), platform.host(r),
                       GpuActor(plan, r, result.ranks[static_cast<size_t>(r)], result.counters));
  engine.run();
  for (const RankStats& s : result.ranks) result.step_time = std::max(result.step_time, s.finish);
  return result;
}

// The child writes its result (or its error) to a pipe as raw values; both ends are this
// same binary, so no portable encoding is needed.
void write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(126);
    p += n;
    size -= static_cast<size_t>(n);
  }
}

bool read_all(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

[[noreturn]] void child(int fd, const Scenario& scenario, const topo::Topology& topology, const SimOptions& options) {
  int status = 0;
  std::string message;
  SimResult result;
  try {
    result = run_engine(scenario, topology, options);
  } catch (const Error& e) {
    status = static_cast<int>(e.exit_code());
    message = e.what();
  } catch (const std::exception& e) {
    status = static_cast<int>(ExitCode::simulation);
    message = std::string("simulation failed: ") + e.what();
  }
  write_all(fd, &status, sizeof status);
  if (status != 0) {
    size_t length = message.size();
    write_all(fd, &length, sizeof length);
    write_all(fd, message.data(), length);
  } else {
    size_t ranks = result.ranks.size();
    write_all(fd, &result.step_time, sizeof result.step_time);
    write_all(fd, &result.counters, sizeof result.counters);
    write_all(fd, &ranks, sizeof ranks);
    write_all(fd, result.ranks.data(), ranks * sizeof(RankStats));
  }
  ::close(fd);
  _exit(0); // skip SimGrid's and the parent's static destructors
}

SimResult read_result(int fd) {
  int status = 0;
  if (!read_all(fd, &status, sizeof status)) throw Error(ExitCode::simulation, "simulation process died");
  if (status != 0) {
    size_t length = 0;
    std::string message;
    if (read_all(fd, &length, sizeof length)) {
      message.resize(length);
      read_all(fd, message.data(), length);
    }
    throw Error(static_cast<ExitCode>(status), message);
  }
  SimResult r;
  size_t ranks = 0;
  bool ok = read_all(fd, &r.step_time, sizeof r.step_time) && read_all(fd, &r.counters, sizeof r.counters) &&
            read_all(fd, &ranks, sizeof ranks);
  r.ranks.resize(ok ? ranks : 0);
  if (!ok || !read_all(fd, r.ranks.data(), ranks * sizeof(RankStats)))
    throw Error(ExitCode::simulation, "simulation process died before reporting its result");
  return r;
}

std::string describe_exit(int wait_status) {
  if (WIFSIGNALED(wait_status)) return "simulation process killed by signal " + std::to_string(WTERMSIG(wait_status));
  return "simulation process exited with status " + std::to_string(WEXITSTATUS(wait_status));
}

} // namespace

SimResult simulate(const Scenario& scenario, const topo::Topology& topology, const SimOptions& options) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error(ExitCode::simulation, std::string("cannot create a pipe: ") + std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) throw Error(ExitCode::simulation, std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], scenario, topology, options);
  }
  ::close(fds[1]);
  SimResult result;
  std::string failure;
  try {
    result = read_result(fds[0]);
  } catch (const Error&) {
    ::close(fds[0]);
    int wait_status = 0;
    ::waitpid(pid, &wait_status, 0);
    if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) throw;
    throw Error(ExitCode::simulation, describe_exit(wait_status));
  }
  ::close(fds[0]);
  ::waitpid(pid, nullptr, 0);
  return result;
}

} // namespace trainsim::sim
