// How often a run's components stop it, and what a checkpoint and a restart cost (a scenario's
// `reliability:` section, docs/faults.md "Goodput"). Each component has an MTBF per unit; the
// job's failure rate sums units / MTBF over the components the cluster has, every failure
// stopping the synchronous job. The defaults are Meta's Llama 3 405B pre-training: 419
// unexpected interruptions in 54 days on 16,384 H100s in 2,048 hosts ("The Llama 3 Herd of
// Models", 2024, arXiv:2407.21783, section 3.3.4, Table 5, its root causes), each cause
// charged to the units of its kind the job had over those 1,296 hours.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "models/units.hpp"

namespace trainsim {

enum class Component : std::uint8_t {
  gpu,      ///< per GPU
  hbm,      ///< per GPU (its HBM stacks)
  host,     ///< per host: CPU, memory, SSD, power, chassis, maintenance
  nic,      ///< per NIC (one per GPU on the fabrics trainsim builds)
  network,  ///< per GPU's port into the fabric: switches and cables, counted together
  software, ///< per GPU: bugs, dependencies, NCCL timeouts
  network_switch, ///< per network switch of the scenario's fabric (no default)
  cable,          ///< per link between switches or from a NIC (no default)
};
constexpr int kComponents = 8;
std::string to_string(Component c);

/// Llama 3's default MTBF of one unit of `c`, or none (switch and cable: the table counts them
/// together, as `network`).
std::optional<Seconds> llama3_mtbf(Component c);

/// `storage_switches`' values, by ReliabilitySpec::storage_level.
inline constexpr std::array<const char*, 4> kStorageTiers = {"top", "leaf", "spine", "core"};

struct ReliabilitySpec {
  /// Per unit; unset: the Llama 3 default, if any. Giving a switch or cable MTBF drops the
  /// `network` default (the two would count the same failures twice).
  std::array<std::optional<Seconds>, kComponents> mtbf{};
  int gpus_per_host = 8;          ///< Llama 3's hosts (Grand Teton: 8 H100s)
  BytesPerSecond storage_bandwidth{}; ///< the storage tier's write bandwidth, all of it; 0: unset
  int storage_nodes = 16;         ///< servers it is spread over, each on its own fabric link
  /// The tier of switches the servers hang off: 0 the fabric's top, else a level (1 leaf,
  /// 2 spine, 3 core), as `storage_switches` names it.
  int storage_level = 0;
  /// A storage network of its own, apart from the training fabric: each host's storage NICs
  /// together (`storage_network`); 0: the servers hang off the training fabric.
  BytesPerSecond storage_network{};
  Bytes storage_capacity{};       ///< 0: not checked
  Seconds restart{};              ///< failure to training again; 0: unset
  std::optional<Seconds> interval; ///< checkpoint interval; none: Young-Daly's
  bool async = false;             ///< copy to host memory, then write beside the steps
  Seconds duration{720 * 3600.0}; ///< the run's wall time for the Monte-Carlo
  std::uint64_t seed = 1;
  [[nodiscard]] bool operator==(const ReliabilitySpec&) const = default;
};

/// The MTBF in effect for `c`: the spec's, else the default unless switch or cable MTBFs are
/// given (then `network` has none).
std::optional<Seconds> mtbf_of(const ReliabilitySpec& r, Component c);

/// How many units of each component the job runs on.
struct Exposure {
  std::array<double, kComponents> units{};
};

/// Failures per hour of the job from `c` alone: units / MTBF (0 without an MTBF).
double failures_per_hour(const ReliabilitySpec& r, const Exposure& e, Component c);
/// Of the whole job.
double failures_per_hour(const ReliabilitySpec& r, const Exposure& e);

} // namespace trainsim
