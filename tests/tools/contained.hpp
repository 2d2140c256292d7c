// Running a piece of a test in a child process, so that one that crashes (a stack overflow, a
// segfault, an address-space limit hit) fails its case instead of the whole test program.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

namespace trainsim::testing {

/// Runs `entry` on `input` in a child process, so that a reproducer that crashes (a stack
/// overflow, a segfault) fails one file instead of the whole test program; "" when it passed.
inline std::string run_contained(const std::function<void(std::string_view)>& entry,
                                 const std::string& input) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    try {
      entry(input);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "  escaped: %s\n", std::string(e.what()).substr(0, 300).c_str());
      std::_Exit(1);
    }
    std::_Exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (WEXITSTATUS(status) != 0)
    return "left the error policy (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
  return "";
}

} // namespace trainsim::testing
