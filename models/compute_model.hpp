// What the operators of models/operators.hpp take on one GPU, from the GPU's efficiency
// figures (GpuSpec, models/hardware_presets.cpp): a GEMM at the sustained matmul rate
// scaled by its tile and wave quantization, flash attention at its measured throughput, a
// memory-bound kernel at the sustained HBM bandwidth, each kernel plus one launch/sync.
// docs/compute-model.md gives the formulas and the sources of every figure.
#pragma once

#include "models/operators.hpp"
#include "models/scenario.hpp"

namespace trainsim {

/// Kernel time split by what sets it, so the closed form can name its terms.
struct KernelTime {
  Seconds compute;  ///< kernels whose FLOP set their length (GEMMs, attention)
  Seconds hbm;      ///< kernels whose HBM traffic sets their length
  Seconds overhead; ///< one launch and synchronisation per kernel
  [[nodiscard]] Seconds total() const { return compute + hbm + overhead; }
  KernelTime& operator+=(const KernelTime& o) {
    compute += o.compute, hbm += o.hbm, overhead += o.overhead;
    return *this;
  }
  friend KernelTime operator+(KernelTime a, const KernelTime& b) { return a += b; }
  friend KernelTime operator*(const KernelTime& a, double k) {
    return {a.compute * k, a.hbm * k, a.overhead * k};
  }
};

/// The GEMM rate on large, well-shaped matrices: gemm_peak, or peak x matmul_efficiency when
/// the GPU has no such figure; `wide`: of a GEMM that stays BF16 under FP8 (wide_gemm_peak
/// where set).
FlopPerSecond gemm_ceiling(const GpuSpec& gpu, bool wide = false);

/// The fraction of gemm_ceiling() a GEMM of this shape reaches: its output is cut into
/// tiles, one per SM per wave; partly filled edge tiles (tile quantization) and a partly
/// filled last wave (wave quantization) waste the rest. The best of the tile shapes cuBLAS
/// chooses from; 1 when the GPU gives no SM count.
double gemm_efficiency(const GemmShape& shape, const GpuSpec& gpu);

/// A fused attention kernel's throughput at this head dimension and sequence length: the GPU's
/// table of that kernel (flash's or cuDNN's), interpolated linearly in head dimension and in
/// log2(sequence length), held at its edges; the BF16 gemm_ceiling() when the GPU has no table.
FlopPerSecond attention_rate(double head_dim, double seq_len, const GpuSpec& gpu,
                             AttentionKernel kernel = AttentionKernel::flash);

/// hbm_bandwidth x hbm_efficiency: what streaming kernels reach.
BytesPerSecond sustained_hbm(const GpuSpec& gpu);

/// One operator: the slower of its FLOP at its rate and its traffic at sustained_hbm(), plus
/// one kernel_latency per kernel.
KernelTime operator_time(const Operator& op, const GpuSpec& gpu);
KernelTime operators_time(const Operators& ops, const GpuSpec& gpu);

} // namespace trainsim
