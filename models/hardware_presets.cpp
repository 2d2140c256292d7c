#include "models/hardware_presets.hpp"

#include <array>
#include <cmath>
#include <cstdio>

#include "models/attention_tables.hpp"
#include "models/check.hpp"
#include "models/error.hpp"

namespace trainsim {
namespace {

// The project baseline for every GPU (docs/closed-form.md): 80% of peak sustained by matmuls
// and 4 us of launch and synchronisation per kernel. Neither is a datasheet figure.
constexpr double kMatmulEfficiency = 0.8;
constexpr double kKernelLatency = 4e-6;

// What the per-operator model needs beyond the datasheet (docs/compute-model.md); every
// figure is a public measurement, cited where the preset is defined, and none was chosen to
// make a published training run match.
struct Efficiency {
  int sms = 0; ///< streaming multiprocessors
  double gemm_peak =
      0; ///< BF16 matmul FLOP/s sustained at the power limit (MSMF) or, unmeasured, MAMF
  std::array<double, 6> d64{},
      d128{};                  ///< causal flash attention fwd+bwd FLOP/s at kAttentionSeqLens
  double hbm_efficiency = 1.0; ///< measured copy bandwidth / datasheet bandwidth
  CollectiveEfficiency nvlink_collectives;
  std::vector<std::string> estimates;             ///< GpuSpec::estimates
  const attention_tables::Table* cudnn = nullptr; ///< GpuSpec::cudnn_attention
};

// GPUs of one SKU differ in the clock they sustain under load: "5% and higher differences on an
// 8-gpu node", "5%+ MAMF spread between GPUs even when all of them pass the same factory
// binning" (stas00/ml-engineering, compute/accelerator/README.md, "Not all accelerators are
// created equal" and "Silicon lottery"); across whole clusters of one SKU, 8% average
// performance variation (Sinha et al., "Not All GPUs Are Created Equal", SC'22). Read as the
// range of 8 draws from a normal distribution, whose expected value is 2.847 standard
// deviations (the control-chart constant d2 for n = 8): a spread of 0.05 / 2.847 = 1.76%. One
// figure for every NVIDIA generation here: neither source gives one per GPU.
constexpr double kSpeedSpread = 0.05 / 2.847;

std::array<FlopPerSecond, 6> rates(const std::array<double, 6>& row) {
  std::array<FlopPerSecond, 6> out{};
  for (size_t i = 0; i < row.size(); ++i) out[i] = FlopPerSecond(row[i]);
  return out;
}

// A x16 host interface per direction: PCIe 4 16 GT/s, PCIe 5 32 GT/s, PCIe 6 64 GT/s per lane
// (PCI-SIG), about 2, 4 and 8 GB/s a lane, written as the project's 32, 64 and 128 GB/s.
struct HostLink {
  double bandwidth;
  const char* name;
};
constexpr HostLink kPcie4{32e9, "PCIe 4 x16"}, kPcie5{64e9, "PCIe 5 x16"},
    kPcie6{128e9, "PCIe 6 x16"};

GpuPreset gpu(std::string name, std::string alias, std::string source, PrecisionPeaks peaks,
              HostLink host, double hbm_bandwidth, double hbm_capacity, const Efficiency& eff) {
  double peak = peaks.bf16;
  GpuSpec spec;
  spec.name = spec.preset = name;
  spec.peak = FlopPerSecond(peak);
  spec.matmul_efficiency = kMatmulEfficiency;
  spec.hbm_bandwidth = BytesPerSecond(hbm_bandwidth);
  spec.hbm_capacity = Bytes(hbm_capacity);
  spec.host_memory_bandwidth = BytesPerSecond(host.bandwidth);
  spec.kernel_latency = Seconds(kKernelLatency);
  spec.sms = eff.sms;
  spec.gemm_peak = FlopPerSecond(eff.gemm_peak);
  spec.flash_attention = {rates(eff.d64), rates(eff.d128), {}};
  spec.hbm_efficiency = eff.hbm_efficiency;
  spec.nvlink_collectives = eff.nvlink_collectives;
  spec.speed_spread = kSpeedSpread;
  spec.estimates = eff.estimates;
  if (eff.cudnn != nullptr)
    spec.cudnn_attention = {rates(eff.cudnn->d64), rates(eff.cudnn->d128), eff.cudnn->estimate};
  return {std::move(name),
          std::move(alias),
          std::move(source),
          spec,
          peaks,
          BytesPerSecond(host.bandwidth),
          host.name};
}

// The matmul rate: the best BF16 torch.matmul over a shape search (stas00/ml-engineering,
// compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS comparison table"). Where it
// was measured, the maximum *sustainable* rate (MSMF): the chip soaked to steady state at its
// power limit, which a training step's dense GEMMs reach, as a short burst does not (a burst
// draws ~176 W on H200 and holds the 1980 MHz boost clock; a saturated GEMM draws ~693 W at
// 1465 MHz). The table with MSMF is on the repository's pull-request branch, commit 082816f
// (2026-08-10): H200 SXM 708.5 (its burst maximum, MAMF, 841.9), B200 SXM 1456.3 (MAMF
// 1770.9) TFLOP/s. H100 SXM takes the H200's MSMF: the same GH100 compute at the same 700 W
// limit (the table's MAMF rows call them "the same"). A100 has no MSMF: it keeps MAMF, 271.2
// (mean of 100 runs after 50 warm-ups), which may overstate its sustained rate (Azure's
// 10,000-warm-up cuBLASLt reaches 257 at 16384^3, docs/compute-model.md).
// FlashAttention-2, causal, forward + backward TFLOP/s at sequence lengths 512 ... 16k
// (batch x sequence = 16k tokens), read from the benchmark charts of Dao-AILab/flash-attention
// (assets/flash2_a100_fwd_bwd_benchmark.png, assets/flash2_h100_fwd_bwd_benchmark.png; the
// FlashAttention-2 paper's Fig. 4 and 5). Sustained HBM: the STREAM-style Copy kernel of
// Azure/AI-benchmarking-guide (Azure_Results/ND_A100_v4_results.md: A100-SXM4-80GB 1.61 TB/s;
// ND_H100_v5: H100 80GB HBM3 2.90 TB/s; ND_H200_v5: H200 141GB 4.01 TB/s) over the datasheet
// bandwidth. SM counts: A100 108 (the FlashAttention paper, section 2.1), H100 and H200 SXM 132
// (stas00/ml-engineering, training/performance/README.md, wave quantization), B200 148
// (cudaDeviceProp.multiProcessorCount as public B200 kernels hard-code it; NVIDIA's
// architecture brief could not be read).
constexpr std::array<double, 6> kA100d64{88e12, 119e12, 140e12, 156e12, 165e12, 171e12};
constexpr std::array<double, 6> kA100d128{99e12, 133e12, 155e12, 173e12, 182e12, 189e12};
constexpr std::array<double, 6> kH100d64{141e12, 192e12, 232e12, 257e12, 273e12, 284e12};
constexpr std::array<double, 6> kH100d128{163e12, 221e12, 265e12, 294e12, 308e12, 328e12};

// NCCL all-reduce bus bandwidth (GB/s) on the 8 GPUs of one NVSwitch node, nccl-tests
// all_reduce_perf in place at 1 MiB, 2 MiB, ... 8 GiB (Azure/AI-benchmarking-guide, "NCCL
// Bandwidth": Azure_Results/ND_A100_v4_results.md, A100-SXM4-80GB, NCCL 2.18.5, a ring: A100
// has no NVLink SHARP; "Azure Results/ND_H100_v5_results.md", H100 80GB HBM3, NCCL 2.18.5, and
// Azure_Results/ND_H200_v5_results.md, H200, NCCL 2.20.5: both the NVLS algorithm, the only
// H100-generation curves published there, whose asymptote is above the ring's). Below 1 MiB
// the collectives are latency-bound, priced by the links' latency instead.
constexpr std::array<double, 14> kA100AllReduce{36.22,  53.54,  71.43,  89.99,  109.22,
                                                132.77, 166.63, 174.18, 213.87, 221.58,
                                                228.10, 230.22, 230.48, 231.58};
constexpr std::array<double, 14> kH100AllReduce{43.70,  81.93,  128.73, 172.13, 234.45,
                                                295.53, 361.78, 400.61, 423.38, 438.46,
                                                466.35, 472.36, 475.54, 478.87};
constexpr std::array<double, 14> kH200AllReduce{52.96,  88.78,  138.44, 181.94, 240.41,
                                                300.91, 368.11, 412.45, 432.24, 442.72,
                                                467.58, 472.57, 477.41, 479.98};

// An all-reduce of S bytes over 8 ranks passes S / 8 bytes per ring step; each point is its
// bus bandwidth over the largest size's, NCCL's asymptote (which the scenarios give as the
// NVLink bandwidth: nccl-tests issues 149 and 212).
CollectiveEfficiency all_reduce_curve(const std::array<double, 14>& busbw) {
  CollectiveEfficiency curve;
  for (size_t i = 0; i < busbw.size(); ++i)
    curve.points.push_back(
        {Bytes(std::ldexp(1.0, 20 + static_cast<int>(i)) / 8.0), busbw[i] / busbw.back()});
  return curve;
}

// The A100 40GB has the 80GB part's GA100 compute; no copy bandwidth of it was found at the
// same scale (CUDA's bandwidthTest, 32 MB: 1157.5 GB/s of 1555, router-gao/cuda-demo), so it
// takes the 80GB part's fraction.
const Efficiency kA100{
    108, 271.2e12, kA100d64, kA100d128, 1.61e12 / 2.039e12, all_reduce_curve(kA100AllReduce), {}};
// GH100 (H100, H200): 132 SMs, the H200's sustained matmul rate and the H100's attention tables;
// H200 shares them (Azure measured FlashAttention-2 at d_head 128, batch 2, 8k tokens: 329.3
// TFLOP/s on H200, 327.9 on H100). Each has its own HBM and NCCL figures.
Efficiency gh100(double hbm_efficiency, const std::array<double, 14>& all_reduce) {
  Efficiency e{132, 708.5e12, kH100d64, kH100d128, hbm_efficiency, all_reduce_curve(all_reduce),
               {}};
  e.cudnn = &attention_tables::cudnn_hopper();
  return e;
}
const Efficiency kH100 = gh100(2.90e12 / 3.35e12, kH100AllReduce);
const Efficiency kH200 = gh100(4.01e12 / 4.8e12, kH200AllReduce);

// B200: no flash attention chart, copy bandwidth or NCCL curve of it was read. Attention: the H100
// table scaled by FlashAttention-2 on GB200 over H200 at the same shape (Azure ND_GB200_v6: 373.9
// vs 329.3 TFLOP/s), an estimate; HBM: the H200's fraction.
Efficiency b200() {
  Efficiency e{148, 1456.3e12, kH100d64, kH100d128, 4.01e12 / 4.8e12, {}, {}};
  for (size_t i = 0; i < 6; ++i) e.d64[i] *= 373.9 / 329.3, e.d128[i] *= 373.9 / 329.3;
  e.cudnn = &attention_tables::cudnn_blackwell();
  e.estimates = {"flash attention: the H100's table x 1.135 (FlashAttention-2 on GB200 over "
                 "H200, Azure ND_GB200_v6; no B200 chart was read)",
                 "hbm_efficiency: the H200's 0.835 (no B200 copy bandwidth was read)"};
  return e;
}

// The later Blackwell parts: the B200 die (GB200 "is 2x B200 chips" a superchip, its 148
// SMs) run faster in an NVL72 rack, and Blackwell Ultra (B300 on an HGX board, GB300 in a rack).
// Only burst matmul rates were measured: GB200's MAMF 1822.0 TFLOP/s BF16 and B300's 1769.0
// (stas00/ml-engineering compute/accelerator/README.md at 7bc7c30); each sustained rate is
// estimated at the B200's ratio of sustained to burst, 1456.3 / 1770.9. GB300 has no
// measurement: the B300's burst rate (the HGX bin of 2.25 PFLOP/s) scaled to the NVL72 bin's
// 2.5 and by the same ratio. Flash attention, HBM and the NCCL curve as the B200's (b200());
// cuDNN attention too, but on Blackwell Ultra, whose forward the B200's table times GB300's
// measured gain (attention_tables::cudnn_blackwell_ultra).
Efficiency blackwell_part(double gemm_peak, std::string matmul_estimate, bool ultra) {
  Efficiency e = b200();
  e.gemm_peak = gemm_peak;
  e.estimates.push_back(std::move(matmul_estimate));
  if (ultra) {
    e.estimates.push_back("sms: the B200's 148 (no Blackwell Ultra count was read)");
    e.cudnn = &attention_tables::cudnn_blackwell_ultra();
  }
  return e;
}

// FP8 matmuls, sustained (MSMF, as for BF16 above) where measured: the same pull-request
// branch of stas00/ml-engineering at 082816f, its FP8 (float8_e4m3fn) table: H200 SXM 1288.7
// (MAMF 1491.9), B200 SXM 2795.7 (MAMF 3435.2) TFLOP/s. H100 takes the H200's, as for BF16.
// Elsewhere only the burst was measured (MAMF, compute/accelerator/README.md at 7bc7c30: B300
// SXM 3353.3, GB200 SXM 3615.6): taken at the B200's FP8 sustained / burst ratio, an estimate
// the report names.
constexpr double kBlackwellFp8Sustained = 2795.7 / 3435.2;
GpuPreset with_fp8(GpuPreset g, double sustained) {
  g.fp8_gemm_peak = FlopPerSecond(sustained);
  return g;
}
GpuPreset with_fp8(GpuPreset g, double burst, std::string what) {
  g.fp8_gemm_peak = FlopPerSecond(burst * kBlackwellFp8Sustained);
  char rate[96];
  std::snprintf(rate, sizeof rate, "%.0f TFLOP/s x %.4g", burst / 1e12, kBlackwellFp8Sustained);
  g.fp8_gemm_estimate = what + " FP8 burst MAMF " + rate +
                        ", the B200's FP8 sustained / burst 2795.7 / 3435.2 (no sustained FP8 "
                        "figure of it was read)";
  return g;
}
// Blackwell data-center GPUs (SM 10.0, 10.3) run MXFP8 natively; Hopper (SM 9.0) has no MX
// tensor cores (Transformer Engine's support matrix, the MXFP8 column: "9.0 (Hopper) ... No",
// "10.0, 10.3 (Blackwell DC) ... Yes"). MX-scaled GEMMs run slower than per-tensor-scaled ones
// of the same shapes: Transformer Engine's GEMM benchmark of a 5B model's layer (hidden 4096,
// intermediate 16384, 15,872 tokens) on a B300 SXM6 AC, inputs pre-quantized, takes 7.161 ms
// per layer in MXFP8 against 6.812 ms in FP8 with current scaling
// (docs/examples/gemm_profiling/gemm_profiling.rst, NVIDIA/TransformerEngine at 1609c890,
// 2026-06-01). Only B300 was measured; the ratio stands for every Blackwell preset, an estimate
// the report names.
constexpr double kMxfp8OverTensorwise = 6.812 / 7.161;
GpuPreset blackwell(GpuPreset g) {
  g.mxfp8 = true;
  g.gpu.fp8_any_layout = true;
  g.mxfp8_over_tensorwise = kMxfp8OverTensorwise;
  return g;
}

constexpr double kBlackwellSustained = 1456.3 / 1770.9;

// Between a GPU's memory and its host's, per direction (activation offloading's copies). On an
// HGX board, the GPU's PCIe link unless the host's is slower: a DGX B200's two Intel Xeon
// Platinum 8570 (NVIDIA DGX B200 datasheet) are PCIe 5.0 parts (Intel's product page), so 64
// GB/s. A Grace-Blackwell GPU reaches the Grace CPU's memory over NVLink-C2C, "900 GB/s
// bidirectional per link" (Transformer Engine, docs/features/other_optimizations/
// cpu_offloading/cpu_offloading.rst at d0067d0d), 450 per direction. Not modelled: two GPUs of
// a superchip share one Grace's LPDDR5X.
GpuPreset with_host_memory(GpuPreset g, double per_direction) {
  g.gpu.host_memory_bandwidth = BytesPerSecond(per_direction);
  return g;
}
constexpr double kNvlinkC2c = 900e9 / 2;

// Peaks are dense BF16 Tensor Core rates: the datasheets quote "with sparsity" figures, twice
// these. Capacities and bandwidths are decimal (GB = 1e9 B, TB/s = 1e12 B/s), as quoted.
const std::vector<GpuPreset>& gpu_registry() {
  static const std::vector<GpuPreset> presets{
      // NVIDIA H100 Tensor Core GPU datasheet, SXM column: BF16 1,979 TFLOPS with sparsity,
      // 80 GB HBM3, 3.35 TB/s.
      // FP32 67 TFLOPS; FP16 as BF16; FP8 3,958 TFLOPS with sparsity; PCIe Gen5 (H100 and
      // H200 datasheets, "Interconnect").
      with_fp8(gpu("h100-sxm", "h100",
                   "NVIDIA H100 datasheet (SXM): 989 TFLOP/s dense BF16, 80 GB HBM3, 3.35 TB/s",
                   {67e12, 989e12, 989e12, 1979e12}, kPcie5, 3.35e12, 80e9, kH100),
               1288.7e12),
      // NVIDIA H200 Tensor Core GPU datasheet, SXM column: the H100's GH100 compute (BF16
      // 1,979 TFLOPS with sparsity), 141 GB HBM3e, 4.8 TB/s.
      with_fp8(gpu("h200-sxm", "h200",
                   "NVIDIA H200 datasheet (SXM): 989 TFLOP/s dense BF16, 141 GB HBM3e, 4.8 TB/s",
                   {67e12, 989e12, 989e12, 1979e12}, kPcie5, 4.8e12, 141e9, kH200),
               1288.7e12),
      // NVIDIA A100 Tensor Core GPU datasheet: BF16 312 TFLOPS (624 with sparsity); the 40 GB
      // SXM part has HBM2 at 1,555 GB/s, the 80 GB SXM part HBM2e at 2,039 GB/s. FP32 19.5
      // TFLOPS, FP16 as BF16; no FP8 tensor cores (Ampere); PCIe Gen4.
      gpu("a100-sxm-40gb", "a100-40gb",
          "NVIDIA A100 datasheet (40GB SXM): 312 TFLOP/s dense BF16, 40 GB HBM2, 1,555 GB/s",
          {19.5e12, 312e12, 312e12, 0}, kPcie4, 1.555e12, 40e9, kA100),
      gpu("a100-sxm-80gb", "a100",
          "NVIDIA A100 datasheet (80GB SXM): 312 TFLOP/s dense BF16, 80 GB HBM2e, 2,039 GB/s",
          {19.5e12, 312e12, 312e12, 0}, kPcie4, 2.039e12, 80e9, kA100),
      // NVIDIA HGX B200 specifications (per GPU of the 8-GPU board): FP16/BF16 4.5 PFLOPS
      // with sparsity, 1.44 TB HBM3e per board (180 GB per GPU), 7.7 TB/s per GPU. B200-class:
      // the DGX B200 quotes 8 TB/s per GPU, and other B200 parts differ in power and memory.
      // FP32 75 TFLOPS, FP8 9 PFLOPS with sparsity, per GPU; the B200's host interface is
      // PCIe Gen6 (NVIDIA Blackwell architecture; a B200 node's NICs may sit on Gen5 switches,
      // which a scenario says with pcie_bandwidth).
      with_host_memory(blackwell(
          with_fp8(gpu("b200", "b200",
                       "NVIDIA HGX B200 (per GPU): 2.25 PFLOP/s dense BF16, 180 GB HBM3e, 7.7 TB/s",
                       {75e12, 2.25e15, 2.25e15, 4.5e15}, kPcie6, 7.7e12, 180e9, b200()),
                   2795.7e12)), kPcie5.bandwidth),
      // NVIDIA HGX B300 (Blackwell Ultra), per GPU of the 8-GPU board: BF16 2,250 TFLOPS dense,
      // FP8 4,500, FP32 75; 288 GB HBM3e at 8 TB/s; PCIe Gen6 (G. Lockwood's processor notes,
      // glennklockwood.com/garden/processors/B300, from NVIDIA's HGX specifications: "The HGX
      // variant of B300 has similar performance to B200"). A DGX B300 gives each GPU a
      // ConnectX-8 800 Gb/s NIC. Measured: burst matmuls only (MAMF, below). To its host's
      // memory, PCIe 5 as the DGX B200's (no DGX B300 host CPU figure was read).
      with_host_memory(blackwell(with_fp8(
          gpu("b300", "b300",
              "NVIDIA HGX B300 (per GPU): 2.25 PFLOP/s dense BF16, 288 GB HBM3e, 8 TB/s",
              {75e12, 2.25e15, 2.25e15, 4.5e15}, kPcie6, 8e12, 288e9,
              blackwell_part(1769.0e12 * kBlackwellSustained,
                              "gemm_peak: B300's burst MAMF 1769 TFLOP/s x the B200's "
                              "sustained / burst 1456.3 / 1770.9 (no sustained B300 "
                              "figure was read)",
                              true)),
          3353.3e12, "B300's")), kPcie5.bandwidth),
      // NVIDIA GB200 NVL72 specifications, per GPU (the rack's 72): FP16/BF16 5 PFLOPS with
      // sparsity (2.5 dense), FP8 10 (5 dense), FP32 80 TFLOPS (stas00/ml-engineering's table
      // "w/o sparsity", note 23, from NVIDIA's page); 186 GB HBM3e at 8 TB/s (the superchip's
      // 372 GB and 16 TB/s; MLCommons system descriptions say 186 GB). Its NICs, ConnectX-7,
      // are PCIe Gen5 devices.
      with_host_memory(blackwell(
          with_fp8(gpu("gb200", "gb200",
                       "NVIDIA GB200 NVL72 (per GPU): 2.5 PFLOP/s dense BF16, 186 GB HBM3e, 8 TB/s",
                       {80e12, 2.5e15, 2.5e15, 5e15}, kPcie5, 8e12, 186e9,
                       blackwell_part(1822.0e12 * kBlackwellSustained,
                                       "gemm_peak: GB200's burst MAMF 1822 TFLOP/s x the B200's "
                                       "sustained / burst 1456.3 / 1770.9 (no sustained GB200 "
                                       "figure was read)",
                                       false)),
                   3615.6e12, "GB200's")), kNvlinkC2c),
      // NVIDIA GB300 NVL72 specifications, per GPU: BF16 2.5 PFLOPS dense, FP8 5 (the table
      // above, note 24); 288 GB HBM3e (20 TB over 72) at 8 TB/s (576 TB/s over 72); a
      // ConnectX-8 800 Gb/s NIC per GPU on PCIe Gen6 (NVIDIA's NVL72 AI Factory reference
      // architecture: "through their respective ConnectX-8 NICs").
      with_host_memory(blackwell(with_fp8(
          gpu("gb300", "gb300",
              "NVIDIA GB300 NVL72 (per GPU): 2.5 PFLOP/s dense BF16, 288 GB HBM3e, 8 TB/s",
              {80e12, 2.5e15, 2.5e15, 5e15}, kPcie6, 8e12, 288e9,
              blackwell_part(1769.0e12 * 2.5 / 2.25 * kBlackwellSustained,
                              "gemm_peak: B300's burst MAMF 1769 TFLOP/s x 2.5 / 2.25 (the "
                              "NVL72 bin) x the B200's sustained / burst 1456.3 / 1770.9 "
                              "(no GB300 matmul figure was read)",
                              true)),
          3353.3e12 * 5.0 / 4.5, "B300's (x 5 / 4.5, the NVL72 bin)")), kNvlinkC2c),
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
                    BytesPerSecond nic, int nvlink_domain = 8) {
  const GpuPreset& g = known_gpu(gpu_name);
  GpuSpec spec = g.gpu;
  spec.name = g.alias;
  return {g.alias, std::move(description), spec, nvlink_domain, nvlink, nic};
}

// Bandwidths per direction (NVLink totals are quoted bidirectional, so halved).
const std::array<HardwarePreset, 8>& registry() {
  static const std::array<HardwarePreset, 8> presets = {
      make("h100-sxm",
           "H100 SXM: 989 TFLOP/s BF16, 80 GB HBM3 at 3.35 TB/s, NVLink 4 900 GB/s, NDR 400 Gb/s",
           BytesPerSecond(450e9), BytesPerSecond(50e9)),
      make("h200-sxm",
           "H200 SXM: 989 TFLOP/s BF16, 141 GB HBM3e at 4.8 TB/s, NVLink 4 900 GB/s, NDR 400 Gb/s",
           BytesPerSecond(450e9), BytesPerSecond(50e9)),
      make("a100-sxm-80gb",
           "A100 SXM 80GB: 312 TFLOP/s BF16, 2.04 TB/s HBM2e, NVLink 3 600 GB/s, HDR 200 Gb/s",
           BytesPerSecond(300e9), BytesPerSecond(25e9)),
      make("a100-sxm-40gb",
           "A100 SXM 40GB: 312 TFLOP/s BF16, 1.56 TB/s HBM2, NVLink 3 600 GB/s, HDR 200 Gb/s",
           BytesPerSecond(300e9), BytesPerSecond(25e9)),
      make("b200",
           "B200 (HGX): 2.25 PFLOP/s BF16, 180 GB HBM3e at 7.7 TB/s, NVLink 5 1.8 TB/s, XDR 800 "
           "Gb/s",
           BytesPerSecond(900e9), BytesPerSecond(100e9)),
      make("b300",
           "B300 (HGX): 2.25 PFLOP/s BF16, 288 GB HBM3e at 8 TB/s, NVLink 5 1.8 TB/s, XDR 800 "
           "Gb/s",
           BytesPerSecond(900e9), BytesPerSecond(100e9)),
      // An NVL72 rack is one NVLink domain of 72 GPUs.
      make("gb200",
           "GB200 NVL72: 2.5 PFLOP/s BF16, 186 GB HBM3e at 8 TB/s, NVLink 5 1.8 TB/s across 72, "
           "NDR 400 Gb/s",
           BytesPerSecond(900e9), BytesPerSecond(50e9), 72),
      make("gb300",
           "GB300 NVL72: 2.5 PFLOP/s BF16, 288 GB HBM3e at 8 TB/s, NVLink 5 1.8 TB/s across 72, "
           "XDR 800 Gb/s",
           BytesPerSecond(900e9), BytesPerSecond(100e9), 72),
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

// Each takes its short name (`--gpu h100`) or the scenario preset's (`--gpu h100-sxm`).
const HardwarePreset& hardware_preset(std::string_view name, std::string_view key) {
  const GpuPreset* gpu = find_gpu_preset(name);
  for (const HardwarePreset& p : registry())
    if (p.name == name || (gpu != nullptr && p.name == gpu->alias)) return p;
  std::vector<std::string> known = hardware_preset_names();
  std::string list;
  for (const std::string& n : known) list += (list.empty() ? "" : ", ") + n;
  throw InputError("frontier", key, name,
                   "unknown GPU preset; known: " + list + did_you_mean(name, known));
}

std::vector<std::string> hardware_preset_names() {
  std::vector<std::string> names;
  for (const HardwarePreset& p : registry()) names.push_back(p.name);
  return names;
}

} // namespace trainsim
