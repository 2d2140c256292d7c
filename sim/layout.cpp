#include "sim/layout.hpp"

namespace trainsim::sim {

std::vector<int> Layout::tp_group(int r) const {
  Coords c = coords(r);
  std::vector<int> group;
  for (c.tp = 0; c.tp < tp_; ++c.tp) group.push_back(rank(c));
  return group;
}

std::vector<int> Layout::dp_group(int r) const {
  Coords c = coords(r);
  std::vector<int> group;
  for (c.dp = 0; c.dp < dp_; ++c.dp) group.push_back(rank(c));
  return group;
}

} // namespace trainsim::sim
