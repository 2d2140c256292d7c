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

void write_links_csv(std::ostream& out, const topo::Topology& t, const std::vector<double>& channel_bytes,
                     Seconds step) {
  out << "link,from,to,tier,bandwidth_Bps,bytes,busy_s,utilization\n";
  for (size_t c = 0; c < channel_bytes.size(); ++c) {
    if (channel_bytes[c] <= 0) continue;
    topo::Hop hop{static_cast<int>(c / 2), c % 2 == 0};
    const topo::LinkProps& link = t.link(hop.link);
    auto [low, high] = t.link_ends(hop.link); // forward runs from the lower vertex id
    Seconds busy = Bytes(channel_bytes[c]) / link.bandwidth;
    out << t.hop_name(hop) << "," << t.vertex_name(hop.forward ? low : high) << ","
        << t.vertex_name(hop.forward ? high : low) << "," << topo::to_string(link.tier) << ","
        << num(link.bandwidth.value()) << "," << num(channel_bytes[c], "%.17g") << "," << num(busy.value()) << ","
        << num(busy / step) << "\n";
  }
}

nlohmann::ordered_json link_tiers_json(const topo::Topology& t, const std::vector<double>& channel_bytes,
                                       Seconds step) {
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
  Layout layout(s.execution);
  std::vector<sim::RankStats> sums(static_cast<size_t>(s.execution.pp));
  std::vector<int> counts(sums.size(), 0);
  for (size_t rank = 0; rank < r.ranks.size(); ++rank) {
    auto stage = static_cast<size_t>(layout.coords(static_cast<int>(rank)).pp);
    const sim::RankStats& x = r.ranks[rank];
    sim::RankStats& sum = sums[stage];
    sum.compute += x.compute, sum.tp += x.tp, sum.pp += x.pp, sum.dp += x.dp, sum.ep += x.ep;
    sum.bubble += x.bubble, sum.finish += x.finish;
    counts[stage] += 1;
  }
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (size_t i = 0; i < sums.size(); ++i) {
    double n = std::max(counts[i], 1);
    const sim::RankStats& x = sums[i];
    double idle = std::max(0.0, r.step_time.value() - x.finish.value() / n);
    stages.push_back({{"stage", i},
                      {"gpus", counts[i]},
                      {"compute", x.compute.value() / n},
                      {"tp_comm", x.tp.value() / n},
                      {"pp_comm", x.pp.value() / n},
                      {"dp_comm", x.dp.value() / n},
                      {"ep_comm", x.ep.value() / n},
                      {"bubble", x.bubble.value() / n},
                      {"idle", idle < 1e-12 ? 0.0 : idle}});
  }
  return stages;
}

} // namespace trainsim

