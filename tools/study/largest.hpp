// The few largest entries of a list, for reports that name the busiest links, the ranks that
// finish last or the GPUs a critical path dwells on.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace trainsim {

/// Keeps the `count` entries of `v` with the largest values, largest first; equal values in
/// key order, so that the result depends neither on `v`'s order nor on the sort.
template <class Key, class Value>
void keep_largest(std::vector<std::pair<Key, Value>>& v, std::size_t count) {
  count = std::min(count, v.size());
  std::partial_sort(v.begin(), v.begin() + static_cast<long>(count), v.end(),
                    [](const auto& a, const auto& b) {
                      if (b.second < a.second) return true;
                      if (a.second < b.second) return false;
                      return a.first < b.first;
                    });
  v.resize(count);
}

} // namespace trainsim
