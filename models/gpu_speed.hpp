// GPUs of one SKU are not equally fast: each chip's voltage-frequency curve and its cooling set
// the clock it sustains under load, so a synchronous step runs at its slowest GPU's pace
// (docs/compute-model.md, "Not every GPU is the median one"). This gives every rank its kernel
// slowdown; the simulator applies it, the closed form does not (it stays a lower bound).
#pragma once

#include <vector>

#include "models/scenario.hpp"

namespace trainsim {

/// Per rank, the factor (>= 1) its compute kernels take longer than the preset's figures say.
/// The ranks take, in a fixed pseudo-random order, the quantiles (i + 0.5) / N of a normal
/// distribution of sustained rates with relative spread `gpu.speed_spread` around the preset's
/// figures (a median GPU's); a GPU above the median runs at the preset's rate. Empty when the
/// spread is 0 or the model is not priced per operator (the paper's MLP blocks and the roofline
/// keep their pricing).
[[nodiscard]] std::vector<double> spread_slowdowns(const Scenario& s);

/// Per rank, the factor its kernels take longer: spread_slowdowns() times the scenario's slow
/// GPUs' (models/faults.hpp: fault_slowdowns()); empty when neither slows any.
[[nodiscard]] std::vector<double> kernel_slowdowns(const Scenario& s);

/// The largest of kernel_slowdowns(s), without drawing them all where only the spread slows
/// GPUs: 1 when there are none.
[[nodiscard]] double slowest_gpu(const Scenario& s);

/// The slowdown of the GPU at quantile `u` (0 < u < 1) of a normal distribution of rates with
/// relative standard deviation `spread`: 1 / (1 - spread x z(u)) for z(u) > 0, else 1.
[[nodiscard]] double slowdown_at(double u, double spread);

} // namespace trainsim
