#include "sim/progress.hpp"

#include <cstdio>
#include <unistd.h>

namespace trainsim::sim {

Progress::Progress(std::uint64_t total, std::chrono::duration<double> quiet_for)
    : total_(total), start_(Clock::now()), last_print_(start_), quiet_for_(quiet_for),
      terminal_(::isatty(STDERR_FILENO) != 0) {}

void Progress::report() {
  auto now = Clock::now();
  std::chrono::duration<double> elapsed = now - start_;
  // On a terminal the line is redrawn every second; in a log, a line every 30 s.
  auto every = terminal_ ? std::chrono::seconds(1) : std::chrono::seconds(30);
  if (elapsed < quiet_for_ || now - last_print_ < every || total_ == 0) return;
  last_print_ = now;
  double fraction = static_cast<double>(done_) / static_cast<double>(total_);
  double eta = fraction > 0 ? elapsed.count() * (1 - fraction) / fraction : 0;
  std::fprintf(stderr, "%ssimulating: %5.1f %% of ops, %.0f s elapsed, about %.0f s left%s",
               terminal_ ? "\r" : "", 100 * fraction, elapsed.count(), eta,
               terminal_ ? "   " : "\n");
  std::fflush(stderr);
  printed_ = true;
}

void Progress::finish() {
  if (printed_ && terminal_) std::fputc('\n', stderr);
}

} // namespace trainsim::sim
