#include "sim/stats.hpp"

namespace trainsim::sim {

std::vector<std::pair<Category, Seconds>>
mean_breakdown(std::vector<RankStats>::const_iterator begin,
               std::vector<RankStats>::const_iterator end, Seconds step) {
  RankStats total;
  double n = 0;
  for (auto it = begin; it != end; ++it, ++n) {
    for (Category c : kCategories) total[c] += (*it)[c];
    total.finish += it->finish;
  }
  std::vector<std::pair<Category, Seconds>> out;
  if (n == 0) n = 1;
  for (Category c : kCategories) out.emplace_back(c, total[c] / n);
  // Every rank's categories add up to its finish time; the rest of the step it idles. Below a
  // picosecond the difference is rounding in the sums, not idling.
  Seconds idle = step - total.finish / n;
  out[index(Category::idle)].second = idle.value() < 1e-12 ? Seconds() : idle;
  return out;
}

} // namespace trainsim::sim
