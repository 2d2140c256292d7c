// The published rows section 4b of docs/validation.md replays: NVIDIA Megatron-Bridge's
// pre-training tables (docs/performance-summary.md and, from 26.02 on, its archive), release
// by release, and DeepSeek-V3's own report. What each scenario assumes is in its file's header.
#pragma once

#include <vector>

namespace trainsim {

// One published figure: a table row (or its figures in parentheses, the FP8-MX run) of one
// release. Several releases' rows of the same configuration replay the same file.
struct BridgeRow {
  const char* file; ///< under scenarios/validation/
  const char* release;
  const char* system;
  const char* workload;
  double tokens; ///< tokens / s / GPU as published
  bool dense = true;
  bool quick = false;       ///< replayed by validate --quick too
  bool paper_scale = false; ///< replayed only with --paper-scale (minutes of CPU alone)
};

/// Every row: the 25.x tables', DeepSeek-V3's report, then the 26.x tables'.
std::vector<BridgeRow> bridge_rows();

} // namespace trainsim
