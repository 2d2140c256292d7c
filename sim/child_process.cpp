#include "sim/child_process.hpp"

#include "sim/progress.hpp"

#include <algorithm>
#include <numeric>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace trainsim::sim {
namespace {

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

// The reply is [status][length][payload]: status 0 and the result, or an ExitCode and a message.
[[noreturn]] void child(const std::function<std::string()>& task, int fd) {
  int status = 0;
  std::string payload;
  try {
    payload = task();
  } catch (const Error& e) {
    status = static_cast<int>(e.exit_code());
    payload = e.what();
  } catch (const std::exception& e) {
    status = static_cast<int>(ExitCode::simulation);
    payload = std::string("simulation failed: ") + e.what();
  }
  size_t length = payload.size();
  write_all(fd, &status, sizeof status);
  write_all(fd, &length, sizeof length);
  write_all(fd, payload.data(), length);
  ::close(fd);
  _exit(0); // skip SimGrid's and the parent's static destructors
}

struct Running {
  pid_t pid = -1;
  int fd = -1;
  size_t task = 0;
  std::string reply; ///< read so far
};

Running start(const std::function<std::string()>& task, size_t index) {
  int fds[2];
  if (::pipe(fds) != 0)
    throw Error(ExitCode::simulation, std::string("cannot create a pipe: ") + std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0)
    throw Error(ExitCode::simulation, std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    child(task, fds[1]);
  }
  ::close(fds[1]);
  return {pid, fds[0], index, {}};
}

// Reads whatever the children have written until one closes its pipe, and returns that one:
// it has replied in full. Replies are read as they come, so a large one cannot block its
// child, and a long task never holds back the start of the next.
size_t next_done(std::vector<Running>& running) {
  std::vector<pollfd> polled;
  for (const Running& r : running) polled.push_back({r.fd, POLLIN, 0});
  char buffer[1 << 16];
  for (;;) {
    if (::poll(polled.data(), polled.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw Error(ExitCode::simulation, std::string("cannot wait for a child: ") +
                                            std::strerror(errno));
    }
    for (size_t i = 0; i < polled.size(); ++i) {
      if (polled[i].revents == 0) continue;
      ssize_t n = ::read(polled[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return i; // the end of its reply, or a pipe that broke with the child
      running[i].reply.append(buffer, static_cast<size_t>(n));
    }
  }
}

std::string describe_exit(int wait_status) {
  if (WIFSIGNALED(wait_status))
    return "simulation process killed by signal " + std::to_string(WTERMSIG(wait_status));
  return "simulation process exited with status " + std::to_string(WEXITSTATUS(wait_status));
}

ChildResult<std::string> finish(const Running& r) {
  const std::string& bytes = r.reply;
  ::close(r.fd);
  int wait_status = 0;
  ::waitpid(r.pid, &wait_status, 0);
  int status = 0;
  size_t length = 0;
  if (bytes.size() < sizeof status + sizeof length)
    return {std::nullopt, ExitCode::simulation, describe_exit(wait_status)};
  std::memcpy(&status, bytes.data(), sizeof status);
  std::memcpy(&length, bytes.data() + sizeof status, sizeof length);
  std::string payload = bytes.substr(sizeof status + sizeof length);
  if (payload.size() != length)
    return {std::nullopt, ExitCode::simulation, describe_exit(wait_status)};
  if (status != 0) return {std::nullopt, static_cast<ExitCode>(status), std::move(payload)};
  return {std::move(payload), ExitCode::simulation, ""};
}

} // namespace

std::vector<ChildResult<std::string>>
run_in_children(const std::vector<std::function<std::string()>>& tasks, int jobs,
                Progress* progress, const std::vector<double>* weights) {
  std::vector<ChildResult<std::string>> results(tasks.size());
  std::vector<size_t> order(tasks.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (weights)
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return (*weights)[a] > (*weights)[b]; });
  std::vector<Running> running;
  size_t next = 0;
  while (next < tasks.size() || !running.empty()) {
    while (next < tasks.size() && static_cast<int>(running.size()) < std::max(jobs, 1)) {
      running.push_back(start(tasks[order[next]], order[next]));
      ++next;
    }
    size_t done = next_done(running);
    Running r = std::move(running[done]);
    running.erase(running.begin() + static_cast<std::ptrdiff_t>(done));
    results[r.task] = finish(r);
    if (progress) progress->add(weights ? (*weights)[r.task] : 1.0);
  }
  if (progress) progress->finish();
  return results;
}

} // namespace trainsim::sim
