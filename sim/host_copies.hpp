// Activation offloading's copies (OpKind::start_copy, models/step_program.cpp): one stream per
// direction between a GPU's memory and its host's, each copy after the previous one on its
// stream, for the time the program gives it (its bytes at GpuSpec::host_memory_bandwidth).
// No other traffic uses that link here, so a copy's end is known when it starts.
#pragma once

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace trainsim::sim {

class HostCopies {
public:
  /// Queues a copy of `duration` seconds at `now` on its direction's stream (`to_host`: out of
  /// the GPU); returns when it runs, [start, end).
  std::pair<double, double> start(bool to_host, double now, double duration) {
    std::vector<double>& ends = ends_[to_host ? 0 : 1];
    double start = ends.empty() ? now : std::max(now, ends.back());
    ends.push_back(start + duration);
    return {start, ends.back()};
  }

  /// When the first `count` copies started on the stream since its last full wait end (0: all
  /// of them, and the stream forgets them: a full wait). A stream's copies end in order.
  double end_of(bool to_host, int count) {
    std::vector<double>& ends = ends_[to_host ? 0 : 1];
    if (ends.empty()) return 0.0;
    size_t n = count == 0 ? ends.size() : std::min(static_cast<size_t>(count), ends.size());
    double end = ends[n - 1];
    if (count == 0) ends.clear();
    return end;
  }

private:
  std::array<std::vector<double>, 2> ends_;
};

} // namespace trainsim::sim
