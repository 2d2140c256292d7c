#include "sim/progress.hpp"

#include <cstdio>
#include <unistd.h>

namespace trainsim::sim {

std::string wait_text(double seconds) {
  char text[32];
  if (seconds < 59.5)
    std::snprintf(text, sizeof text, "%.0f s", seconds < 0 ? 0.0 : seconds);
  else if (seconds < 3600)
    std::snprintf(text, sizeof text, "%.2g min", seconds / 60);
  else
    std::snprintf(text, sizeof text, "%.2g h", seconds / 3600);
  return text;
}

Progress::Progress(std::string what, double total, std::string unit, Show show,
                   std::chrono::duration<double> quiet_for)
    : what_(std::move(what)), unit_(std::move(unit)), show_(show), total_(total),
      start_(Clock::now()), last_print_(start_), quiet_for_(quiet_for),
      terminal_(::isatty(STDERR_FILENO) != 0) {}

void Progress::add(double work) {
  done_ += work;
  report();
}

void Progress::report() {
  auto now = Clock::now();
  std::chrono::duration<double> elapsed = now - start_;
  auto every = terminal_ ? std::chrono::seconds(1) : std::chrono::seconds(30);
  if (elapsed < quiet_for_ || total_ <= 0 || (lines_ > 0 && now - last_print_ < every)) return;
  if (done_ >= total_ && !printed_) return; // all done: nothing left to estimate
  ++lines_;
  last_print_ = now;
  double fraction = done_ / total_;
  // The rate so far, carried to the rest: work items of like cost, or weights that make them so.
  std::string left =
      fraction > 0 ? "about " + wait_text(elapsed.count() * (1 - fraction) / fraction) + " left"
                   : "no estimate yet";
  char done[96];
  if (show_ == Show::count)
    std::snprintf(done, sizeof done, "%.0f of %.0f %s", done_, total_, unit_.c_str());
  else
    std::snprintf(done, sizeof done, "%5.1f %% of %s", 100 * fraction, unit_.c_str());
  std::fprintf(stderr, "%s%s: %s, %s elapsed, %s%s", terminal_ ? "\r" : "", what_.c_str(), done,
               wait_text(elapsed.count()).c_str(), left.c_str(), terminal_ ? "   " : "\n");
  std::fflush(stderr);
  printed_ = true;
}

void Progress::finish() {
  if (printed_ && terminal_) std::fputc('\n', stderr);
  printed_ = false;
}

} // namespace trainsim::sim
