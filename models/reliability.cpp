#include "models/reliability.hpp"

namespace trainsim {
namespace {

// Llama 3's snapshot: 16,384 GPUs (and NICs) in 2,048 hosts for 54 days = 1,296 hours.
constexpr double kHours = 54.0 * 24.0;
constexpr double kGpuHours = 16384.0 * kHours;
constexpr double kHostHours = 2048.0 * kHours;

} // namespace

std::string to_string(Component c) {
  switch (c) {
  case Component::gpu:
    return "gpu";
  case Component::hbm:
    return "hbm";
  case Component::host:
    return "host";
  case Component::nic:
    return "nic";
  case Component::network:
    return "network";
  case Component::software:
    return "software";
  case Component::network_switch:
    return "switch";
  case Component::cable:
    break;
  }
  return "cable";
}

// Table 5's 419 interruptions by cause, summed by the unit each happens on:
//   gpu: faulty GPU 148, GPU SRAM 19, GPU system processor 17, silent data corruption 6,
//        thermal interface and sensor 6 = 196 over 16,384 GPUs;
//   hbm: GPU HBM3 memory 72 over 16,384 GPUs;
//   host: host maintenance 32, SSD 3, power supply 3, chassis 2, IO expansion board 2, CPU 2,
//         system memory 2 = 46 over 2,048 hosts;
//   nic: 7 over 16,384 NICs (one backend NIC per GPU);
//   network: network switch and cable 35, charged per GPU's port into the fabric;
//   software: software bug 54, dependency 2, NCCL watchdog timeouts 7 = 63 over 16,384 GPUs.
// 196 + 72 + 46 + 7 + 35 + 63 = 419.
std::optional<Seconds> llama3_mtbf(Component c) {
  auto hours = [](double h) { return Seconds(h * 3600); };
  switch (c) {
  case Component::gpu:
    return hours(kGpuHours / 196);
  case Component::hbm:
    return hours(kGpuHours / 72);
  case Component::host:
    return hours(kHostHours / 46);
  case Component::nic:
    return hours(kGpuHours / 7);
  case Component::network:
    return hours(kGpuHours / 35);
  case Component::software:
    return hours(kGpuHours / 63);
  case Component::network_switch:
  case Component::cable:
    break;
  }
  return std::nullopt;
}

std::optional<Seconds> mtbf_of(const ReliabilitySpec& r, Component c) {
  if (const auto& given = r.mtbf[static_cast<size_t>(c)]) return given;
  bool split = r.mtbf[static_cast<size_t>(Component::network_switch)] ||
               r.mtbf[static_cast<size_t>(Component::cable)];
  if (c == Component::network && split) return std::nullopt;
  return llama3_mtbf(c);
}

double failures_per_hour(const ReliabilitySpec& r, const Exposure& e, Component c) {
  std::optional<Seconds> m = mtbf_of(r, c);
  return m ? e.units[static_cast<size_t>(c)] / (m->value() / 3600) : 0.0;
}

double failures_per_hour(const ReliabilitySpec& r, const Exposure& e) {
  double sum = 0;
  for (int c = 0; c < kComponents; ++c) sum += failures_per_hour(r, e, static_cast<Component>(c));
  return sum;
}

} // namespace trainsim
