// The cuDNN fused attention kernel's measured rates per GPU generation, which
// `model.attention: cudnn` prices with (sources in models/attention_tables.cpp).
#pragma once

#include <array>
#include <string>

namespace trainsim::attention_tables {

/// Causal forward + backward FLOP/s at kAttentionSeqLens (models/scenario.hpp), per head
/// dimension, and the estimates behind them (GpuSpec::estimates lines).
struct Table {
  std::array<double, 6> d64{}, d128{};
  std::string estimate;
};

/// Hopper (H100, H200: the same GH100 compute).
const Table& cudnn_hopper();
/// Blackwell (B200; GB200 takes it, as it takes the B200's flash attention table).
const Table& cudnn_blackwell();
/// Blackwell Ultra (GB300): the B200's, its forward at GB300's measured gain over GB200.
const Table& cudnn_blackwell_ultra();

} // namespace trainsim::attention_tables
