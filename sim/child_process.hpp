// The one way trainsim runs work in child processes: each task forks, runs, and sends its
// result back through a pipe. SimGrid 3.32 allows one engine per process (a second aborts),
// so every simulation runs in a child of its own; compare, sweep and validation run many at a
// time the same way. A child that throws trainsim::Error or dies becomes an error of its task,
// never of the caller's process.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/error.hpp"

namespace trainsim::sim {

class Progress;

/// What one child answered: its result, or why it has none.
template <class T>
struct ChildResult {
  std::optional<T> value;
  ExitCode code = ExitCode::simulation; ///< when there is no value
  std::string error;                    ///< one line, when there is no value
};

/// How a result crosses the pipe. Both ends are this same binary, so the bytes need no
/// portable encoding; specialize for each type a child returns.
template <class T>
struct Codec;

template <>
struct Codec<std::string> {
  static std::string encode(const std::string& s) { return s; }
  static std::string decode(std::string_view bytes) { return std::string(bytes); }
};

/// Runs every task in its own child process, at most `jobs` at a time (at least one), and
/// returns their results in task order. A trainsim::Error a task throws keeps its exit code
/// and message; any other exception, and a child that dies, is an ExitCode::simulation error.
/// A new task starts as soon as any running one finishes. `progress`, if given, gains one per
/// task finished, or the task's entry of `weights` (one per task) where their costs differ;
/// with weights the dearest tasks start first, so that no long one is left to run alone at
/// the end.
std::vector<ChildResult<std::string>>
run_in_children(const std::vector<std::function<std::string()>>& tasks, int jobs,
                Progress* progress = nullptr, const std::vector<double>* weights = nullptr);

template <class T>
std::vector<ChildResult<T>> run_in_children(const std::vector<std::function<T()>>& tasks, int jobs,
                                            Progress* progress = nullptr,
                                            const std::vector<double>* weights = nullptr) {
  std::vector<std::function<std::string()>> encoded;
  for (const auto& task : tasks) encoded.push_back([&task] { return Codec<T>::encode(task()); });
  std::vector<ChildResult<T>> out;
  for (ChildResult<std::string>& r : run_in_children(encoded, jobs, progress, weights))
    out.push_back({r.value ? std::optional<T>(Codec<T>::decode(*r.value)) : std::nullopt, r.code,
                   std::move(r.error)});
  return out;
}

/// One task in one child; its Error is rethrown here.
template <class T>
T run_in_child(const std::function<T()>& task) {
  ChildResult<T> r = std::move(run_in_children<T>({task}, 1).front());
  if (!r.value) throw Error(r.code, r.error);
  return std::move(*r.value);
}

} // namespace trainsim::sim
