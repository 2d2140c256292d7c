// Degraded components in a step (a scenario's `faults:` section, docs/faults.md): GPUs that run
// their kernels slower than their preset. The simulator applies them; the closed form does
// not, so it stays a lower bound of the faulty step too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainsim {

struct Scenario;

/// GPUs whose kernels run at `factor` of the preset's rate (a power cap, thermal throttling, a
/// bad HBM stack): one rank, every GPU of one node, or a fraction of all ranks placed by a
/// seed.
struct SlowGpus {
  enum class Which : std::uint8_t { rank, node, fraction };
  Which which = Which::rank;
  int index = 0;        ///< the rank or node (Which::rank, Which::node)
  double fraction = 0;  ///< of all ranks, at least one (Which::fraction)
  int seed = 0;         ///< which ranks a fraction takes
  double factor = 1;    ///< of the kernel rate, in (0, 1]
};

struct FaultSpec {
  std::vector<SlowGpus> slow_gpus;
  [[nodiscard]] bool any() const { return !slow_gpus.empty(); }
};

/// What one entry names, as a scenario file writes it ("rank 12", "node 3", "1% of ranks,
/// seed 0") with its factor: for reports and provenance.
std::string describe(const SlowGpus& slow);

/// By rank, how much longer its kernels take because of the faults (1 / factor, the product
/// where several entries name it); empty without faults.
std::vector<double> fault_slowdowns(const Scenario& s);

/// Throws InputError naming the entry, key and value for the first fault the scenario's
/// execution and fabric cannot have.
void check_faults(const Scenario& s);

} // namespace trainsim
