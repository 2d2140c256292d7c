// Running the trainsim binary the way a user does, for the tests of its command-line contract.
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace trainsim::testing {

struct CliOutput {
  int exit_code = -1; // -1 when the program did not exit normally (signal, popen failure)
  std::string text;
};

// Machine-readable output is checked on stdout alone, as a user piping it would see it:
// sanitizer builds print warnings on stderr.
enum class Streams { stdout_and_stderr, stdout_only };

/// What a shell command line prints on stdout, and its exit code.
inline CliOutput run_command(const std::string& command) {
  CliOutput out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    out.text = "popen failed: " + command;
    return out;
  }
  std::array<char, 4096> buffer{};
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) out.text.append(buffer.data(), n);
  int status = pclose(pipe);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

inline CliOutput run_trainsim(const std::string& arguments,
                              Streams streams = Streams::stdout_and_stderr) {
  return run_command(std::string(TRAINSIM_BINARY) + " " + arguments +
                     (streams == Streams::stdout_and_stderr ? " 2>&1" : " 2>/dev/null"));
}

} // namespace trainsim::testing
