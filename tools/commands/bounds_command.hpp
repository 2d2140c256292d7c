// `trainsim bounds SCENARIO`: the closed-form lower bound on the step time, term by term.
#pragma once

#include <string>

namespace trainsim {

struct BoundsOptions {
  std::string scenario;
  bool json = false;
};
int bounds_command(const BoundsOptions& options);

} // namespace trainsim
