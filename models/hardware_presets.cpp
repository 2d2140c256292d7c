#include "models/hardware_presets.hpp"

#include <array>

#include "models/check.hpp"
#include "models/error.hpp"

namespace trainsim {
namespace {

// The project baseline for every GPU (docs/closed-form.md): 80% of peak sustained by matmuls
// and 4 us of launch and synchronisation per kernel. Neither is a datasheet figure.
constexpr double kMatmulEfficiency = 0.8;
constexpr double kKernelLatency = 4e-6;

GpuPreset gpu(std::string name, std::string alias, std::string source, double peak,
              double hbm_bandwidth, double hbm_capacity) {
  GpuSpec spec{name,
               FlopPerSecond(peak),
               kMatmulEfficiency,
               BytesPerSecond(hbm_bandwidth),
               Bytes(hbm_capacity),
               Seconds(kKernelLatency),
               name};
  return {std::move(name), std::move(alias), std::move(source), spec};
}

// Peaks are dense BF16 Tensor Core rates: the datasheets quote "with sparsity" figures, twice
// these. Capacities and bandwidths are decimal (GB = 1e9 B, TB/s = 1e12 B/s), as quoted.
const std::vector<GpuPreset>& gpu_registry() {
  static const std::vector<GpuPreset> presets{
      // NVIDIA H100 Tensor Core GPU datasheet, SXM column: BF16 1,979 TFLOPS with sparsity,
      // 80 GB HBM3, 3.35 TB/s.
      gpu("h100-sxm", "h100",
          "NVIDIA H100 datasheet (SXM): 989 TFLOP/s dense BF16, 80 GB HBM3, 3.35 TB/s", 989e12,
          3.35e12, 80e9),
      // NVIDIA H200 Tensor Core GPU datasheet, SXM column: the H100's GH100 compute (BF16
      // 1,979 TFLOPS with sparsity), 141 GB HBM3e, 4.8 TB/s.
      gpu("h200-sxm", "",
          "NVIDIA H200 datasheet (SXM): 989 TFLOP/s dense BF16, 141 GB HBM3e, 4.8 TB/s", 989e12,
          4.8e12, 141e9),
      // NVIDIA A100 Tensor Core GPU datasheet: BF16 312 TFLOPS (624 with sparsity); the 40 GB
      // SXM part has HBM2 at 1,555 GB/s, the 80 GB SXM part HBM2e at 2,039 GB/s.
      gpu("a100-sxm-40gb", "",
          "NVIDIA A100 datasheet (40GB SXM): 312 TFLOP/s dense BF16, 40 GB HBM2, 1,555 GB/s",
          312e12, 1.555e12, 40e9),
      gpu("a100-sxm-80gb", "a100",
          "NVIDIA A100 datasheet (80GB SXM): 312 TFLOP/s dense BF16, 80 GB HBM2e, 2,039 GB/s",
          312e12, 2.039e12, 80e9),
      // NVIDIA HGX B200 specifications (per GPU of the 8-GPU board): FP16/BF16 4.5 PFLOPS
      // with sparsity, 1.44 TB HBM3e per board (180 GB per GPU), 7.7 TB/s per GPU. B200-class:
      // the DGX B200 quotes 8 TB/s per GPU, and other B200 parts differ in power and memory.
      gpu("b200", "b200",
          "NVIDIA HGX B200 (per GPU): 2.25 PFLOP/s dense BF16, 180 GB HBM3e, 7.7 TB/s", 2.25e15,
          7.7e12, 180e9),
  };
  return presets;
}

const GpuPreset& known_gpu(std::string_view name) {
  const GpuPreset* p = find_gpu_preset(name);
  TRAINSIM_CHECK(p != nullptr, "hardware preset names GPU preset '" + std::string(name) +
                                   "', which does not exist");
  return *p;
}

// A GPU preset on its usual platform, named as `--gpu` names it; the GPU's own name is the
// short one too, so the frontier's outputs do not change.
HardwarePreset make(const std::string& gpu_name, std::string description, BytesPerSecond nvlink,
                    BytesPerSecond nic) {
  const GpuPreset& g = known_gpu(gpu_name);
  GpuSpec spec = g.gpu;
  spec.name = g.alias;
  return {g.alias, std::move(description), spec, 8, nvlink, nic};
}

// Bandwidths per direction (NVLink totals are quoted bidirectional, so halved).
const std::array<HardwarePreset, 3>& registry() {
  static const std::array<HardwarePreset, 3> presets = {
      make("h100-sxm",
           "H100 SXM: 989 TFLOP/s BF16, 80 GB HBM3 at 3.35 TB/s, NVLink 4 900 GB/s, NDR 400 Gb/s",
           BytesPerSecond(450e9), BytesPerSecond(50e9)),
      make("a100-sxm-80gb",
           "A100 SXM 80GB: 312 TFLOP/s BF16, 2.04 TB/s HBM2e, NVLink 3 600 GB/s, HDR 200 Gb/s",
           BytesPerSecond(300e9), BytesPerSecond(25e9)),
      make("b200",
           "B200 (HGX): 2.25 PFLOP/s BF16, 180 GB HBM3e at 7.7 TB/s, NVLink 5 1.8 TB/s, XDR 800 "
           "Gb/s",
           BytesPerSecond(900e9), BytesPerSecond(100e9)),
  };
  return presets;
}

} // namespace

const std::vector<GpuPreset>& gpu_presets() { return gpu_registry(); }

const GpuPreset* find_gpu_preset(std::string_view name) {
  for (const GpuPreset& p : gpu_registry())
    if (p.name == name || (!p.alias.empty() && p.alias == name)) return &p;
  return nullptr;
}

std::vector<std::string> gpu_preset_names() {
  std::vector<std::string> names;
  for (const GpuPreset& p : gpu_registry()) names.push_back(p.name);
  return names;
}

const HardwarePreset& hardware_preset(std::string_view name, std::string_view key) {
  for (const HardwarePreset& p : registry())
    if (p.name == name) return p;
  throw InputError("trainsim frontier", key, name,
                   "unknown GPU preset; known: h100, a100, b200" +
                       did_you_mean(name, hardware_preset_names()));
}

std::vector<std::string> hardware_preset_names() {
  std::vector<std::string> names;
  for (const HardwarePreset& p : registry()) names.push_back(p.name);
  return names;
}

} // namespace trainsim
