// The report's link heatmap: per fabric tier, how many link directions fall in each
// utilization band (from links.csv), each cell shaded by how busy its hottest link is.
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
/// directions in it, shaded by utilization_shade of the hottest of them, with a colour scale.
std::string link_heatmap(const std::vector<LinkUse>& links);

/// The shade of a utilization, "#rrggbb": from near white at 0 through orange to dark red at
/// 1 (and above), with the heatmap's band edges (0, 1, 2, 5, 10, 20, 50, 100 %) evenly
/// spaced along the scale and linear within each band.
std::string utilization_shade(double utilization);

} // namespace trainsim
