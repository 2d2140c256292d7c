// goodput.svg (`trainsim goodput --out DIR`, shown by `trainsim report DIR`): expected goodput
// against the checkpoint interval and against the cluster size, both on log axes, with the
// chosen interval and the job's size marked.
#pragma once

#include <string>
#include <vector>

namespace trainsim {

struct GoodputPoint {
  double x = 0;       ///< seconds of interval, or GPUs
  double goodput = 0; ///< 0..1
};

struct GoodputCurves {
  std::vector<GoodputPoint> by_interval; ///< seconds
  double chosen_interval = 0;
  std::vector<GoodputPoint> by_size; ///< GPUs
  double job_gpus = 0;
};

std::string goodput_svg(const GoodputCurves& curves);

} // namespace trainsim
