#include "models/goodput.hpp"

#include <cmath>
#include <random>

namespace trainsim {

Seconds GoodputInputs::mtbf() const {
  return Seconds(3600.0 / (gpus * failures_per_gpu_hour));
}

Seconds young_daly_interval(const GoodputInputs& in) {
  return Seconds(std::sqrt(2.0 * in.checkpoint.value() * in.mtbf().value()));
}

double first_order_goodput(const GoodputInputs& in, Seconds interval) {
  double tau = interval.value(), c = in.checkpoint.value(), m = in.mtbf().value();
  double lost = (in.restart.value() + (tau + c) / 2.0) / m;
  return tau / (tau + c) * (1.0 - lost);
}

namespace {

// An exponential time of mean `mean` from the generator's next word: -mean ln(1 - u), u in
// [0, 1) from its top 53 bits, so the stream does not depend on a standard library's
// distributions.
double exponential(std::mt19937_64& rng, double mean) {
  double u = static_cast<double>(rng() >> 11U) * 0x1.0p-53;
  return -mean * std::log1p(-u);
}

} // namespace

GoodputRun monte_carlo_goodput(const GoodputInputs& in, Seconds interval, Seconds wall,
                               std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  double m = in.mtbf().value(), tau = interval.value(), c = in.checkpoint.value();
  double end = wall.value(), now = 0, kept = 0;
  GoodputRun run{wall, Seconds(), 0, 0};
  while (now < end) {
    // From the last checkpoint: train and checkpoint until the next failure or the run's end.
    double failure = now + exponential(rng, m), stop = std::min(failure, end);
    while (now + tau + c <= stop) now += tau + c, kept += tau, ++run.checkpoints;
    // Stopped inside a period: its work since the checkpoint counts at the run's end; a
    // failure loses it, and the checkpoint it interrupts.
    if (stop >= end) {
      kept += std::min(end - now, tau);
      break;
    }
    now = failure + in.restart.value();
    ++run.failures;
  }
  run.useful = Seconds(kept);
  return run;
}

} // namespace trainsim
