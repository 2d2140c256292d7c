#include "tools/formats/run_outputs.hpp"
#include "tools/formats/text.hpp"

#include <cstdio>
#include <filesystem>
#include <map>

#include "models/error.hpp"
#include "models/layout.hpp"

namespace trainsim {
namespace {

// Bytes with every digit, so the rows add up to the totals; times to nine digits.
std::string num(double v, const char* format = "%.9g") { return formatted(format, v); }

struct TierTotals {
  double bytes = 0, busy = 0, max_utilization = 0;
  int links = 0;
};

} // namespace

void write_links_csv(std::ostream& out, const topo::Topology& t,
                     const std::vector<double>& channel_bytes, Seconds step) {
  out << "link,from,to,tier,bandwidth_Bps,bytes,busy_s,utilization\n";
  for (size_t c = 0; c < channel_bytes.size(); ++c) {
    if (channel_bytes[c] <= 0) continue;
    topo::Hop hop{static_cast<int>(c / 2), c % 2 == 0};
    const topo::LinkProps& link = t.link(hop.link);
    auto [low, high] = t.link_ends(hop.link); // forward runs from the lower vertex id
    Seconds busy = Bytes(channel_bytes[c]) / link.bandwidth;
    out << t.hop_name(hop) << "," << t.vertex_name(hop.forward ? low : high) << ","
        << t.vertex_name(hop.forward ? high : low) << "," << topo::to_string(link.tier) << ","
        << num(link.bandwidth.value()) << "," << num(channel_bytes[c], "%.17g") << ","
        << num(busy.value()) << "," << num(busy / step) << "\n";
  }
}

nlohmann::ordered_json link_tiers_json(const topo::Topology& t,
                                       const std::vector<double>& channel_bytes, Seconds step) {
  std::map<std::string, TierTotals> tiers;
  for (size_t c = 0; c < channel_bytes.size(); ++c) {
    if (channel_bytes[c] <= 0) continue;
    const topo::LinkProps& link = t.link(static_cast<int>(c / 2));
    Seconds busy = Bytes(channel_bytes[c]) / link.bandwidth;
    TierTotals& tier = tiers[topo::to_string(link.tier)];
    tier.bytes += channel_bytes[c];
    tier.busy += busy.value();
    tier.links += 1;
    tier.max_utilization = std::max(tier.max_utilization, busy / step);
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, tier] : tiers)
    j[name] = {{"bytes", tier.bytes},
               {"links_used", tier.links},
               {"busy_s", tier.busy},
               {"mean_utilization", tier.busy / tier.links / step.value()},
               {"max_utilization", tier.max_utilization}};
  return j;
}

nlohmann::ordered_json stage_breakdown_json(const Scenario& s, const sim::SimResult& r) {
  // A stage's ranks are consecutive (models/layout.hpp: TP, then DP, then PP).
  auto per_stage = static_cast<long>(Layout(s.execution).ranks_per_stage());
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (int stage = 0; stage < s.execution.pp; ++stage) {
    auto first = r.ranks.begin() + stage * per_stage;
    nlohmann::ordered_json j{{"stage", stage}, {"gpus", per_stage}};
    for (const auto& [category, time] : sim::mean_breakdown(first, first + per_stage, r.step_time))
      j[sim::name(category)] = time.value();
    stages.push_back(j);
  }
  return stages;
}

} // namespace trainsim
