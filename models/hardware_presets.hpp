// Named GPUs and GPU + fabric presets from public datasheets. A scenario's `system.gpu` names
// a GPU preset (`gpu: a100-sxm-80gb`) and may override any of its figures; the frontier model
// starts from a hardware preset (`--gpu h100`), every field overridable by a knob.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/scenario.hpp"

namespace trainsim {

/// One GPU model: its figures (GpuSpec, whose `name` and `preset` are the preset's name) and
/// where they come from.
/// Dense peak FLOP/s at each `model.precision`, from the datasheet; 0: the GPU has no such
/// tensor cores. fp32 is what frameworks run by default: PyTorch keeps FP32 matmuls off TF32
/// (`torch.backends.cuda.matmul.allow_tf32` is False since 1.12), so the CUDA cores' FP32 rate.
struct PrecisionPeaks {
  double fp32 = 0, fp16 = 0, bf16 = 0, fp8 = 0;
  /// The peak at `precision` (one of the names model.precision takes); 0 when unsupported.
  [[nodiscard]] double at(std::string_view precision) const;
};

struct GpuPreset {
  std::string name;   ///< as written in a scenario, e.g. "a100-sxm-80gb"
  std::string alias;  ///< the short name the frontier uses ("a100"), or ""
  std::string source; ///< one line: the datasheet each figure comes from
  GpuSpec gpu;        ///< at BF16, the precision every preset figure was measured at
  PrecisionPeaks peaks;
  /// The GPU's host interface, per direction, which its NIC traffic crosses: the PCIe
  /// generation of the part, x16 (a topology's `pcie_bandwidth` when it sets none).
  BytesPerSecond host_link{64e9};
  std::string host_link_name; ///< e.g. "PCIe 5 x16"
  /// The sustained FP8 matmul rate where an FP8 matmul was measured (0: none): its sustained
  /// rate, or its burst rate at a measured chip's FP8 sustained / burst ratio, an estimate
  /// (`fp8_gemm_estimate` says how; empty: measured).
  FlopPerSecond fp8_gemm_peak{0};
  std::string fp8_gemm_estimate{};
  /// Whether its tensor cores take MXFP8's 32-element block scales (model.fp8_recipe: mxfp8).
  bool mxfp8 = false;
  /// An MXFP8 GEMM's rate over a per-tensor-scaled FP8 GEMM's of the same shape (1: the same).
  double mxfp8_over_tensorwise = 1.0;
};

/// The preset's figures at `precision`: the datasheet's dense peak at it, and the sustained
/// rates (gemm_peak; attention with fp32) scaled by the peaks' ratio to BF16, an estimate each
/// (GpuSpec::estimates says so); at fp8, the FP8 matmul rate from a measurement where there is
/// one (GpuPreset::fp8_gemm_peak). fp8 keeps BF16's attention: Transformer Engine's FP8 recipes
/// run attention's matmuls in BF16 unless asked otherwise, and the LM head's GEMMs
/// (wide_gemm_peak: the BF16 rate). Under the mxfp8 recipe the FP8 matmul rate is scaled by
/// mxfp8_over_tensorwise. None when the GPU has no such tensor cores (fp8 before Hopper).
std::optional<GpuSpec> preset_at_precision(const GpuPreset& preset, std::string_view precision,
                                           Fp8Recipe recipe = Fp8Recipe::none);

/// Every GPU preset, in a stable order (the H100 SXM, the project baseline, first).
const std::vector<GpuPreset>& gpu_presets();

/// The preset called `name` (or its alias); nullptr when there is none.
const GpuPreset* find_gpu_preset(std::string_view name);

/// The preset names, in order, as a scenario writes them.
std::vector<std::string> gpu_preset_names();

struct HardwarePreset {
  std::string name;
  std::string description;                ///< one line with the sources of the figures
  GpuSpec gpu;                            ///< peak, sustained fraction, HBM, kernel latency
  int nvlink_domain = 8;                  ///< GPUs per NVLink/NVSwitch domain
  BytesPerSecond nvlink_bandwidth{450e9}; ///< per GPU per direction
  BytesPerSecond network_bandwidth{50e9}; ///< per GPU NIC per direction
};

/// The preset called `name`; throws InputError naming `key` and suggesting a known name.
const HardwarePreset& hardware_preset(std::string_view name, std::string_view key = "gpu");

/// All preset names, in registry order (h100 first: the baseline).
std::vector<std::string> hardware_preset_names();

} // namespace trainsim
