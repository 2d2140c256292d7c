// cuDNN's fused attention (what Transformer Engine runs on Hopper and Blackwell) as two papers
// measured it beside their own kernels, and Blackwell Ultra's gain as cuDNN's own benchmark
// measured it. Each point is a causal forward + backward rate in
// FlashAttention's count (forward 4 s^2 d_head per head and sequence, halved by the mask;
// backward 2.5 x forward), combined from the forward rate F and backward rate B as
// 3.5 / (1 / F + 2.5 / B). The figures are the bars' printed labels.
#include "models/attention_tables.hpp"

#include <utility>

namespace trainsim::attention_tables {
namespace {

double combined(double forward, double backward) { return 3.5 / (1 / forward + 2.5 / backward); }

// H100 80GB SXM5, FP16, 16k tokens a batch: Shah et al., "FlashAttention-3" (arXiv
// 2407.08608v2), Fig. 5 (forward, with and without the causal mask) and Fig. 6 (backward,
// without it only), the "cuDNN" bars at sequence 512 ... 16k. No causal backward was published,
// so the backward is taken to lose to the mask what the forward loses: the causal rate is the
// non-causal forward + backward rate x the causal / non-causal forward ratio.
constexpr std::array<double, 6> kCausalForward64{225, 288, 334, 363, 379, 388};
constexpr std::array<double, 6> kForward64{335, 373, 395, 408, 412, 413};
constexpr std::array<double, 6> kBackward64{266, 348, 395, 417, 432, 433};
constexpr std::array<double, 6> kCausalForward128{315, 410, 484, 518, 529, 539};
constexpr std::array<double, 6> kForward128{497, 574, 617, 609, 600, 595};
constexpr std::array<double, 6> kBackward128{305, 408, 465, 499, 518, 516};

std::array<double, 6> hopper_row(const std::array<double, 6>& causal_forward,
                                 const std::array<double, 6>& forward,
                                 const std::array<double, 6>& backward) {
  std::array<double, 6> row{};
  for (size_t i = 0; i < row.size(); ++i)
    row[i] = 1e12 * combined(forward[i], backward[i]) * causal_forward[i] / forward[i];
  return row;
}

// "B200" (the paper's appendix names a B100 180GB SXM6 at 1000 W), BF16, 32k tokens a batch:
// Zadouri et al., "FlashAttention-4" (arXiv 2603.05451v1), Fig. 4 (forward) and Fig. 6
// (backward), causal, head dimension 128, the "cuDNN 9.13.0" bars at sequence 1k ... 16k. The
// paper has no 512 point and no head dimension 64: both are scaled from the Hopper table
// (512 by its 512 / 1k ratio, d64 by its d64 / d128 ratio at each length).
constexpr std::array<double, 5> kBlackwellForward128{717, 929, 1076, 1168, 1285};
constexpr std::array<double, 5> kBlackwellBackward128{543, 732, 893, 1008, 1085};

Table hopper() {
  Table t{hopper_row(kCausalForward64, kForward64, kBackward64),
          hopper_row(kCausalForward128, kForward128, kBackward128),
          "cuDNN attention: causal backward from FlashAttention-3's non-causal one x the "
          "forward's causal / non-causal ratio (no causal backward was published)"};
  return t;
}

// The B200's bars, each forward at `forward_gain` x its rate (1 on the B200 itself), combined
// at 1k-16k; sequence 512 and d_head 64 scaled by the Hopper table's ratios.
Table blackwell_bars(const std::array<double, 5>& forward_gain, std::string estimate) {
  const Table& h = cudnn_hopper();
  Table t;
  for (size_t i = 1; i < t.d128.size(); ++i)
    t.d128[i] = 1e12 * combined(kBlackwellForward128[i - 1] * forward_gain[i - 1],
                                kBlackwellBackward128[i - 1]);
  t.d128[0] = t.d128[1] * h.d128[0] / h.d128[1];
  for (size_t i = 0; i < t.d64.size(); ++i) t.d64[i] = t.d128[i] * h.d64[i] / h.d128[i];
  t.estimate = std::move(estimate);
  return t;
}

Table blackwell() {
  return blackwell_bars({1, 1, 1, 1, 1},
                        "cuDNN attention: FlashAttention-4's B200 cuDNN 9.13.0 bars at d_head "
                        "128, 1k-16k; sequence 512 and d_head 64 scaled by the Hopper table's "
                        "ratios");
}

// Blackwell Ultra (GB300) doubles the special-function units' exponentials per clock, which
// bound attention's forward on Blackwell (FlashAttention-4, above: "bottlenecked by
// exponential" in its forward, shared memory in its backward). cuDNN's own prefill sweep
// measured the forward on both NVL72 GPUs with one cuDNN, 9.27.0 (NVIDIA/cudnn-frontend,
// benchmark/attention_inference/results/prefill_sweep/, gb200/prefill_sweep_20260928_124103.csv
// at d6d35d69 and gb300/prefill_sweep_20260928_183101.csv at bd77903d; the "cudnn" rows of the
// llama3.1 preset, 64 query and 8 key/value heads of 128, batch 1, squares of 2k ... 16k
// tokens). GB300's rate over GB200's at each length:
constexpr double kUltra2k = 1249.309 / 955.765, kUltra4k = 1688.564 / 1229.461,
                 kUltra8k = 1875.932 / 1438.125, kUltra16k = 1986.330 / 1562.874;

// The B200's table with the forward at GB300's measured gain (1k and 512 taking 2k's); the
// backward keeps the B200's rate (no Blackwell Ultra backward was measured).
Table blackwell_ultra() {
  return blackwell_bars({kUltra2k, kUltra2k, kUltra4k, kUltra8k, kUltra16k},
                        "cuDNN attention: the B200's table with the forward x GB300 / GB200 as "
                        "cuDNN 9.27's prefill sweep measured it (1.27 to 1.37), 1k taking 2k's; "
                        "the backward as the B200's (no Blackwell Ultra backward was read)");
}

} // namespace

const Table& cudnn_hopper() {
  static const Table t = hopper();
  return t;
}

const Table& cudnn_blackwell() {
  static const Table t = blackwell();
  return t;
}

const Table& cudnn_blackwell_ultra() {
  static const Table t = blackwell_ultra();
  return t;
}

} // namespace trainsim::attention_tables
