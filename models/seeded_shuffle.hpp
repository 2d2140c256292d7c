// A deterministic shuffle drawn from a seed, for the placements a scenario seeds (the EP ranks'
// shares under routing imbalance, a fraction of slow GPUs): Fisher-Yates on our own mapping of
// mt19937_64's words to positions, so a placement does not depend on a standard library's
// shuffle or distributions.
#pragma once

#include <random>
#include <utility>
#include <vector>

namespace trainsim {

template <class T>
void seeded_shuffle(std::vector<T>& xs, unsigned long long seed) {
  if (xs.size() < 2) return;
  std::mt19937_64 rng(seed);
  for (size_t i = xs.size() - 1; i > 0; --i) std::swap(xs[i], xs[rng() % (i + 1)]);
}

} // namespace trainsim
