#include "tools/study/step_summary.hpp"

#include <algorithm>
#include <cstdio>

#include "models/gpu_speed.hpp"
#include "models/step_compute.hpp"
#include "models/workload.hpp"
#include "tools/study/largest.hpp"

namespace trainsim {
namespace {

LinkLoad link_load(const topo::Topology& t, int channel, double bytes, Seconds step) {
  topo::Hop hop{channel / 2, channel % 2 == 0};
  Seconds busy = Bytes(bytes) / t.link(hop.link).bandwidth;
  return {t.hop_name(hop), Bytes(bytes), busy, busy / step};
}

} // namespace

std::vector<TierLoad> summarize_links(const topo::Topology& t,
                                      const std::vector<double>& channel_bytes, Seconds step,
                                      size_t top) {
  std::vector<TierLoad> tiers;
  std::vector<std::vector<std::pair<int, double>>> used_by_tier; // (channel, bytes)
  for (size_t c = 0; c < channel_bytes.size(); ++c) {
    if (channel_bytes[c] <= 0) continue;
    std::string tier = topo::to_string(t.link(static_cast<int>(c / 2)).tier);
    auto it =
        std::find_if(tiers.begin(), tiers.end(), [&](const TierLoad& l) { return l.tier == tier; });
    if (it == tiers.end()) {
      tiers.push_back({tier, Bytes(), 0, {}});
      used_by_tier.emplace_back();
      it = tiers.end() - 1;
    }
    it->bytes += Bytes(channel_bytes[c]);
    it->links_used += 1;
    used_by_tier[static_cast<size_t>(it - tiers.begin())].emplace_back(static_cast<int>(c),
                                                                        channel_bytes[c]);
  }
  for (size_t i = 0; i < tiers.size(); ++i) {
    keep_largest(used_by_tier[i], top);
    for (const auto& [channel, bytes] : used_by_tier[i])
      tiers[i].busiest.push_back(link_load(t, channel, bytes, step));
  }
  return tiers;
}

StepSummary summarize(const Scenario& s, const sim::SimResult& r) {
  StepSummary out;
  out.gpus = s.execution.gpus();
  out.microbatches = s.execution.microbatches();
  out.step_time = r.step_time;
  double peak = (s.system.gpu.peak * r.step_time).value() * out.gpus;
  StepFlop flop = step_flop(s.model, s.execution);
  out.mfu = flop.model.value() / peak;
  out.hfu = flop.hardware.value() / peak;
  out.model_flop_rate = flop.model / (r.step_time * out.gpus);
  out.hardware_flop_rate = flop.hardware / (r.step_time * out.gpus);
  out.tokens_per_s = tokens_per_step(s.model, s.execution) / r.step_time.value();
  out.breakdown = sim::mean_breakdown(r.ranks.begin(), r.ranks.end(), r.step_time);
  out.slowest_gpu = slowest_gpu(s);
  return out;
}

std::string blame(const StepSummary& sum) {
  std::string phase = "compute";
  Seconds most;
  for (const auto& [category, time] : sum.breakdown)
    if (category != sim::Category::compute && category != sim::Category::idle && time > most)
      most = time, phase = sim::name(category);
  const LinkLoad* busiest = nullptr;
  std::string tier;
  for (const TierLoad& t : sum.tiers)
    if (!t.busiest.empty() && (!busiest || t.busiest.front().utilization > busiest->utilization))
      busiest = &t.busiest.front(), tier = t.tier;
  char line[256];
  std::snprintf(line, sizeof line, "phase %s (%.0f%% of the step)", phase.c_str(),
                100.0 * (most / sum.step_time));
  std::string out = line;
  if (busiest) {
    std::snprintf(line, sizeof line, "; busiest link %s (%s tier, busy %.0f%% of the step)",
                  busiest->name.c_str(), tier.c_str(), 100.0 * busiest->utilization);
    out += line;
  }
  return out;
}

void attach_bound(StepSummary& sum, const BoundResult& bound) {
  sum.bound = bound.step_time;
  sum.bound_limiting = limiting_text(bound);
  sum.bound_terms = bound.terms;
  sum.blame = sum.step_time > bound.step_time * kBlameRatio ? blame(sum) : "";
}

} // namespace trainsim
