// The report's link heatmap: per fabric tier, how many link directions fall in each
// utilization band (from links.csv).
#pragma once

#include <string>
#include <vector>

namespace trainsim {

/// One link direction's tier and utilization, as links.csv lists them.
struct LinkUse {
  std::string tier;
  double utilization = 0;
};

/// "link-heatmap": rows are tiers, columns utilization bands, each cell the number of link
/// directions in it.
std::string link_heatmap(const std::vector<LinkUse>& links);

} // namespace trainsim
