#include "models/faults.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "models/error.hpp"
#include "models/params.hpp"
#include "models/scenario.hpp"
#include "models/seeded_shuffle.hpp"

namespace trainsim {
namespace {

std::string entry(size_t i) { return "faults.slow_gpus[" + std::to_string(i) + "]"; }

// The ranks a fraction takes: the first round(fraction x n) (at least one) of a shuffle drawn
// from the seed.
std::vector<int> fraction_of(int n, double fraction, int seed) {
  std::vector<int> ranks(static_cast<size_t>(n));
  std::iota(ranks.begin(), ranks.end(), 0);
  seeded_shuffle(ranks, static_cast<unsigned long long>(seed));
  auto take = std::max<long>(1, std::lround(fraction * n));
  ranks.resize(static_cast<size_t>(std::min<long>(take, n)));
  return ranks;
}

std::vector<int> ranks_of(const SlowGpus& slow, const Scenario& s) {
  int gpus = s.execution.gpus(), per_node = s.system.topology.gpus_per_node();
  switch (slow.which) {
  case SlowGpus::Which::rank:
    return {slow.index};
  case SlowGpus::Which::node: {
    std::vector<int> ranks(static_cast<size_t>(per_node));
    std::iota(ranks.begin(), ranks.end(), slow.index * per_node);
    return ranks;
  }
  case SlowGpus::Which::fraction:
    break;
  }
  return fraction_of(gpus, slow.fraction, slow.seed);
}

} // namespace

std::string describe(const SlowGpus& slow) {
  std::string what;
  switch (slow.which) {
  case SlowGpus::Which::rank:
    what = "rank " + std::to_string(slow.index);
    break;
  case SlowGpus::Which::node:
    what = "node " + std::to_string(slow.index);
    break;
  case SlowGpus::Which::fraction:
    what = Params::text_of(slow.fraction) + " of the ranks (seed " + std::to_string(slow.seed) + ")";
    break;
  }
  return what + " at " + Params::text_of(slow.factor) + " of the kernel rate";
}

std::string describe(const DegradedLinks& l) {
  std::string what;
  switch (l.which) {
  case DegradedLinks::Which::nic:
    what = "rank " + std::to_string(l.rank) + "'s NIC link";
    break;
  case DegradedLinks::Which::link:
    what = "link " + l.link;
    break;
  case DegradedLinks::Which::tier:
    what = "every " + l.tier + " link";
    break;
  }
  std::string how;
  if (l.factor < 1) how = " at " + Params::text_of(l.factor) + " of its bandwidth";
  if (l.extra_latency > Seconds())
    how += std::string(how.empty() ? " " : ", ") + format(l.extra_latency) + " more latency";
  return what + how;
}

std::string describe(const FailedPart& part) {
  return (part.which == FailedPart::Which::link ? "link " : "switch ") + part.name + " failed";
}

std::vector<double> fault_slowdowns(const Scenario& s) {
  if (!s.faults.any()) return {};
  std::vector<double> slowdown(static_cast<size_t>(s.execution.gpus()), 1.0);
  for (const SlowGpus& slow : s.faults.slow_gpus)
    for (int r : ranks_of(slow, s)) slowdown[static_cast<size_t>(r)] /= slow.factor;
  return slowdown;
}

void check_faults(const Scenario& s) {
  int gpus = s.execution.gpus(), per_node = s.system.topology.gpus_per_node();
  for (size_t i = 0; i < s.faults.slow_gpus.size(); ++i) {
    const SlowGpus& slow = s.faults.slow_gpus[i];
    auto broken = [&](const char* key, const std::string& value, const std::string& problem) {
      throw InputError(s.file, entry(i) + "." + key, value, problem);
    };
    if (!(slow.factor > 0 && slow.factor <= 1))
      broken("factor", Params::text_of(slow.factor),
             "must be above 0 and at most 1: the share of its kernel rate a slow GPU keeps");
    if (slow.which == SlowGpus::Which::rank && (slow.index < 0 || slow.index >= gpus))
      broken("rank", std::to_string(slow.index),
             "is not a rank of this job (0 to " + std::to_string(gpus - 1) + ")");
    if (slow.which == SlowGpus::Which::node && per_node < 1)
      broken("node", std::to_string(slow.index),
             "needs a fabric whose nodes are known (this imported graph does not say)");
    if (slow.which == SlowGpus::Which::node &&
        (slow.index < 0 || slow.index >= gpus / std::max(per_node, 1)))
      broken("node", std::to_string(slow.index),
             "is not a node of this job (0 to " + std::to_string(gpus / per_node - 1) + ", " +
                 std::to_string(per_node) + " GPUs each)");
    if (slow.which == SlowGpus::Which::fraction && !(slow.fraction > 0 && slow.fraction <= 1))
      broken("fraction", Params::text_of(slow.fraction), "must be above 0 and at most 1");
  }
  for (size_t i = 0; i < s.faults.degraded_links.size(); ++i) {
    const DegradedLinks& l = s.faults.degraded_links[i];
    std::string at = "faults.degraded_links[" + std::to_string(i) + "].";
    if (!(l.factor > 0 && l.factor <= 1))
      throw InputError(s.file, at + "factor", Params::text_of(l.factor),
                       "must be above 0 and at most 1: the share of its bandwidth a link keeps "
                       "(a failed link is removed, not degraded)");
    if (l.extra_latency < Seconds())
      throw InputError(s.file, at + "extra_latency", Params::text_of(l.extra_latency),
                       "must be at least 0");
    if (l.which == DegradedLinks::Which::nic && (l.rank < 0 || l.rank >= gpus))
      throw InputError(s.file, at + "nic", std::to_string(l.rank),
                       "is not a rank of this job (0 to " + std::to_string(gpus - 1) + ")");
  }
}

} // namespace trainsim
