// A progress line with an ETA on stderr, for work that takes more than a few seconds: a
// simulation's ops, a validation section's runs, a sweep's variants, a frontier's points.
// Nothing is printed for work that ends within `quiet_for`; on a terminal the line is redrawn
// every second, in a log a line is written every 30 s.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace trainsim::sim {

class Progress {
public:
  /// How the work done is shown: "3 of 12 variants" (each add() a whole item) or "45.1 % of
  /// ops" (a share of `total`, which may be a weight such as the GPUs to simulate).
  enum class Show { count, share };

  /// `what` leads the line ("simulating", "sweep"); `unit` names what `total` counts.
  Progress(std::string what, double total, std::string unit, Show show = Show::share,
           std::chrono::duration<double> quiet_for = std::chrono::seconds(3));
  /// A simulation's ops: one per op an actor runs; the clock is read every 4,096.
  explicit Progress(std::uint64_t ops) : Progress("simulating", static_cast<double>(ops), "ops") {}

  void tick() {
    if (++ticks_ % 4096 == 0) {
      done_ = static_cast<double>(ticks_);
      report();
    }
  }
  /// `work` more done (an item, or its weight), and the line if it is due.
  void add(double work = 1.0);
  /// Ends the line if one was printed on a terminal.
  void finish();

private:
  void report();

  using Clock = std::chrono::steady_clock;
  std::string what_, unit_;
  Show show_;
  double total_;
  double done_ = 0;
  std::uint64_t ticks_ = 0;
  Clock::time_point start_, last_print_;
  std::chrono::duration<double> quiet_for_;
  bool printed_ = false; ///< a line is open on the terminal
  int lines_ = 0;        ///< lines printed: the first is due once `quiet_for` has passed
  bool terminal_;
};

/// A wall-clock duration as a person reads it while waiting: "0 s", "42 s", "3.5 min", "1.2 h".
std::string wait_text(double seconds);

} // namespace trainsim::sim
