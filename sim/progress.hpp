// A progress line with an ETA on stderr, for simulations that take more than a few seconds.
// Actors tick once per op; the wall clock is looked at only every few thousand ticks.
#pragma once

#include <chrono>
#include <cstdint>

namespace trainsim::sim {

class Progress {
public:
  /// `total` ops in the whole simulation; nothing is printed before `quiet_for` has passed.
  explicit Progress(std::uint64_t total,
                    std::chrono::duration<double> quiet_for = std::chrono::seconds(3));
  void tick() {
    if (++done_ % 4096 == 0) report();
  }
  /// Ends the line if one was printed.
  void finish();

private:
  void report();

  using Clock = std::chrono::steady_clock;
  std::uint64_t total_;
  std::uint64_t done_ = 0;
  Clock::time_point start_, last_print_;
  std::chrono::duration<double> quiet_for_;
  bool printed_ = false;
  bool terminal_;
};

} // namespace trainsim::sim
