#include "models/compute_model.hpp"

#include <algorithm>
#include <cmath>

#include "models/check.hpp"

namespace trainsim {
namespace {

// Output tiles a cuBLAS/CUTLASS Tensor Core GEMM kernel computes per thread block on A100 and
// H100-class GPUs: 256 x 128 (either way round) for large GEMMs, 128 x 128 where larger tiles
// would leave SMs idle (NVIDIA, "Matrix Multiplication Background User's Guide",
// DU-09799-001, section 2.3 "Typical tile dimensions in cuBLAS"). One global choice, not a
// per-GPU figure: we could not read per-GPU tile tables.
struct Tile {
  double m, n;
};
constexpr Tile kTiles[] = {{256, 128}, {128, 256}, {128, 128}};

double quantized(const GemmShape& g, Tile t, double sms) {
  double tiles = std::ceil(g.m / t.m) * std::ceil(g.n / t.n) * g.batch;
  double filled = g.m * g.n * g.batch / (tiles * t.m * t.n);
  double waves = std::ceil(tiles / sms);
  return filled * tiles / (waves * sms);
}

// Linear interpolation of y over x at v, held at the ends.
template <class Y, size_t N>
double interpolate(const std::array<double, N>& xs, const std::array<Y, N>& ys, double v) {
  auto at = [&](size_t i) {
    if constexpr (std::is_arithmetic_v<Y>)
      return ys[i];
    else
      return ys[i].value();
  };
  if (v <= xs.front()) return at(0);
  if (v >= xs.back()) return at(N - 1);
  size_t i = 1;
  while (xs[i] < v) ++i;
  double f = (v - xs[i - 1]) / (xs[i] - xs[i - 1]);
  return at(i - 1) + f * (at(i) - at(i - 1));
}

// One row of the table at this sequence length: interpolated in log2(s), where the
// measurements are evenly spaced.
double row_at(const std::array<FlopPerSecond, 6>& row, double seq_len) {
  std::array<double, 6> logs{};
  for (size_t i = 0; i < logs.size(); ++i) logs[i] = std::log2(kAttentionSeqLens[i]);
  return interpolate(logs, row, std::log2(std::max(seq_len, 1.0)));
}

KernelTime priced(Seconds flop_time, Bytes bytes, double kernels, const GpuSpec& gpu) {
  Seconds memory = bytes / sustained_hbm(gpu);
  KernelTime t;
  (flop_time >= memory ? t.compute : t.hbm) = std::max(flop_time, memory);
  t.overhead = gpu.kernel_latency * kernels;
  return t;
}

} // namespace

FlopPerSecond gemm_ceiling(const GpuSpec& gpu, bool wide) {
  if (wide && gpu.wide_gemm_peak.value() > 0) return gpu.wide_gemm_peak;
  return gpu.gemm_peak.value() > 0 ? gpu.gemm_peak : gpu.peak * gpu.matmul_efficiency;
}

double gemm_efficiency(const GemmShape& g, const GpuSpec& gpu) {
  if (gpu.sms <= 0 || g.m <= 0 || g.n <= 0) return 1.0;
  double best = 0.0;
  for (Tile t : kTiles) best = std::max(best, quantized(g, t, gpu.sms));
  return best;
}

FlopPerSecond attention_rate(double head_dim, double seq_len, const GpuSpec& gpu,
                             AttentionKernel kernel) {
  const AttentionRates& r =
      kernel == AttentionKernel::cudnn ? gpu.cudnn_attention : gpu.flash_attention;
  if (!r.known()) return gemm_ceiling(gpu, true); // attention stays BF16 under FP8
  // Measured at head dimensions 64 and 128 only: beyond them the nearer row is used.
  double low = row_at(r.d64, seq_len), high = row_at(r.d128, seq_len);
  return FlopPerSecond(
      interpolate(std::array<double, 2>{64, 128}, std::array<double, 2>{low, high}, head_dim));
}

BytesPerSecond sustained_hbm(const GpuSpec& gpu) { return gpu.hbm_bandwidth * gpu.hbm_efficiency; }

KernelTime operator_time(const Operator& op, const GpuSpec& gpu) {
  TRAINSIM_CHECK(op.count >= 1.0 || op.kind != OperatorKind::gemm,
                 std::string("operator ") + op.name + " has no kernel");
  switch (op.kind) {
  case OperatorKind::gemm:
    return priced(op.flop / (gemm_ceiling(gpu, op.wide) * gemm_efficiency(op.gemm, gpu)), op.bytes,
                  op.count, gpu);
  case OperatorKind::attention:
    return priced(op.flop / attention_rate(op.head_dim, op.seq_len, gpu, op.kernel), op.bytes,
                  op.count, gpu);
  case OperatorKind::memory:
    return priced(Seconds(0), op.bytes - (gpu.fp8_any_layout ? op.transpose_bytes : Bytes()),
                  op.count, gpu);
  }
  return {};
}

KernelTime operators_time(const Operators& ops, const GpuSpec& gpu) {
  KernelTime t;
  for (const Operator& op : ops) t += operator_time(op, gpu);
  return t;
}

} // namespace trainsim
