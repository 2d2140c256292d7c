#include "tools/formats/report.hpp"
#include "tools/formats/report_memory.hpp"
#include "tools/formats/text.hpp"

#include "tools/io/provenance.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "models/gpu_speed.hpp"
#include "models/step_compute.hpp"
#include "models/workload.hpp"

namespace trainsim {
namespace {

// `text` in lines of at most `width` characters, the first after `first`, the others
// indented by `rest`: the legend's sentences fit a terminal.
std::string wrapped(const std::string& text, size_t width, const std::string& first,
                    const std::string& rest) {
  std::string out = first;
  size_t column = first.size(), start = first.size();
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (column > start && column + 1 + word.size() > width) {
      out += "\n" + rest;
      column = start = rest.size();
    } else if (column > start) {
      out += ' ';
      column += 1;
    }
    out += word;
    column += word.size();
  }
  return out + "\n";
}

// The preset's estimated figures, and the cuDNN attention table's where the model uses it.
std::vector<std::string> estimated_figures(const Scenario& s) {
  std::vector<std::string> out = s.system.gpu.estimates;
  const AttentionRates& cudnn = s.system.gpu.cudnn_attention;
  if (s.model.attention == AttentionKernel::cudnn && !cudnn.estimate.empty())
    out.push_back(cudnn.estimate);
  return out;
}

nlohmann::ordered_json critical_path_json(const CriticalPath& p) {
  nlohmann::ordered_json on = nlohmann::ordered_json::array(), by = on, links = on;
  for (const auto& [rank, time] : p.longest_on) on.push_back({{"rank", rank}, {"s", time.value()}});
  for (const auto& h : p.hand_overs)
    by.push_back({{"via", h.via},
                  {"count", h.count},
                  {"transfer_s", h.transfer.value()},
                  {"contention_s", h.contention.value()}});
  for (const auto& [link, time] : p.links) links.push_back({{"link", link}, {"s", time.value()}});
  nlohmann::ordered_json slow = nlohmann::ordered_json::array(), steps = slow;
  for (const auto& [rank, time] : p.slow_on) slow.push_back({{"rank", rank}, {"s", time.value()}});
  for (const sim::PathStep& st : p.steps)
    steps.push_back({{"rank", st.rank},
                     {"from_rank", st.from_rank},
                     {"via", via_name(st.via)},
                     {"stream", st.stream},
                     {"reverse", st.reverse},
                     {"handed_s", st.handed},
                     {"start_s", st.start},
                     {"end_s", st.end},
                     {"alone_s", st.alone >= 0 ? nlohmann::ordered_json(st.alone) : nullptr}});
  return {{"first_rank", p.first_rank}, {"last_rank", p.last_rank}, {"ranks", p.ranks},
          {"longest_on", on},           {"hand_overs", by},         {"links", links},
          {"slow_on", slow},            {"steps", steps}};
}

// "each node's GPU 0 ran for its 8 rails", or with own rails which GPU ran for which.
void print_rail_bundle(std::ostream& out, const RunInfo& info, bool failures) {
  out << "; rail bundling: each node's GPU " << info.rail_leader << " ran for its ";
  if (info.own_rails.empty()) {
    out << info.rail_bundle << " rails";
    return;
  }
  out << info.rail_bundle - static_cast<int>(info.own_rails.size()) << " healthy rails, GPU";
  for (size_t k = 0; k < info.own_rails.size(); ++k)
    out << (k == 0 ? " " : ", ") << info.own_rails[k];
  out << (failures ? " (on a degraded or failed link) for " : " (on a degraded link) for ")
      << (info.own_rails.size() == 1 ? "its own" : "their own");
}

// The experts' own groups where they have any: EP, and whether it folds over TP x DP.
std::string expert_plan(const ExecutionSpec& e) {
  if (e.ep <= 1 && !e.experts_fold()) return "";
  if (!e.experts_fold()) return ", EP " + std::to_string(e.ep);
  return ", EP " + std::to_string(e.ep) + " over TP x DP (etp " + std::to_string(e.expert_tp()) +
         ")";
}

} // namespace

std::string hand_over_time(const CriticalPath::HandOvers& h) {
  // Below a thousandth of the transfer is SimGrid's timing, not another flow.
  bool shared = h.contention.value() > 1e-3 * h.transfer.value();
  return format(h.transfer) +
         (shared ? ", " + format(h.contention) + " of it on shared links" : "");
}

std::string critical_path_line(const CriticalPath& p) {
  if (p.empty()) return "";
  std::string out = "rank " + std::to_string(p.first_rank) + " to rank " +
                    std::to_string(p.last_rank) + " through " + std::to_string(p.ranks) +
                    (p.ranks == 1 ? " GPU" : " GPUs") + "; longest on";
  for (size_t k = 0; k < p.longest_on.size(); ++k)
    out += (k == 0 ? " rank " : ", rank ") + std::to_string(p.longest_on[k].first) + " (" +
           format(p.longest_on[k].second) + ")";
  for (size_t k = 0; k < p.hand_overs.size(); ++k)
    out += (k == 0 ? "; hand-overs: " : ", ") + p.hand_overs[k].via + " " +
           std::to_string(p.hand_overs[k].count) + " (" + hand_over_time(p.hand_overs[k]) + ")";
  for (size_t k = 0; k < p.links.size(); ++k)
    out += (k == 0 ? "; links: " : ", ") + p.links[k].first + " (" +
           format(p.links[k].second) + ")";
  if (p.slow_gpus && p.slow_on.empty()) out += "; no slow GPU on it";
  for (size_t k = 0; k < p.slow_on.size(); ++k)
    out += (k == 0 ? "; slow GPUs on it: rank " : ", rank ") + std::to_string(p.slow_on[k].first) +
           " (" + format(p.slow_on[k].second) + ")";
  return out;
}

void print_report(std::ostream& out, const Scenario& s, const topo::Topology& t,
                  const StepSummary& sum, const RunInfo& info) {
  const ExecutionSpec& e = s.execution;
  out << s.file << ": " << s.model.name << " on " << sum.gpus << " GPUs ("
      << t.gpu_count() / t.gpus_per_node() << " nodes), DP " << e.dp << " x TP " << e.tp
      << (e.tp_2d > 1 ? " x TP2 " + std::to_string(e.tp_2d) : std::string()) << " x PP " << e.pp
      << (e.cp > 1 ? " x CP " + std::to_string(e.cp) : std::string()) << expert_plan(e) << ", "
      << to_string(e.schedule) << ", " << sum.microbatches << " microbatches of " << e.micro_batch
      << "\n";
  out << wrapped(hardware_line(s), 100, "  simulated     ", "                ");
  out << "  by            " << origin_line(s) << "\n";
  for (const std::string& estimate : estimated_figures(s))
    out << wrapped("estimated preset figure: " + estimate, 100, "  note          ",
                   "                ");
  ModelParameters params = model_parameters(s.model);
  out << "  model         " << formatted("%.4g", params.total / 1e9) << " B parameters ("
      << formatted("%.4g", params.active / 1e9) << " B active); "
      << format(model_flop_per_step(s.model, e) / tokens_per_step(s.model, e))
      << " per token, forward and backward\n";
  out << "  step time     " << format(sum.step_time) << "\n";
  out << "  MFU           " << percent(sum.mfu) << " (model FLOP: no recomputation; of the "
      << format(s.system.gpu.peak) << " dense " << s.model.precision << " peak)\n";
  out << "  HFU           " << percent(sum.hfu) << " (hardware FLOP: with recomputation)\n";
  out << "  per GPU       " << format(sum.model_flop_rate) << " model, "
      << format(sum.hardware_flop_rate) << " hardware\n";
  out << "  tokens/s      " << formatted("%.4g", sum.tokens_per_s) << "\n";
  out << "  breakdown (mean per GPU, adds up to the step time)\n";
  for (const auto& [category, time] : sum.breakdown) {
    char line[96];
    std::snprintf(line, sizeof line, "    %-10s %12s  %6s\n", sim::name(category),
                  format(time).c_str(), percent(time / sum.step_time).c_str());
    out << line;
  }
  out << "  where each GPU's time goes\n";
  for (sim::Category c : sim::kCategories)
    out << wrapped(sim::meaning(c), 100, "    " + std::string(sim::name(c)) + ": ", "      ");
  if (!sum.tiers.empty())
    out << "  links (bytes per tier; busiest direction, its time at line rate)\n";
  for (const TierLoad& tier : sum.tiers) {
    const LinkLoad& top = tier.busiest.front();
    char line[256];
    std::snprintf(
        line, sizeof line, "    %-7s %10s over %6d  busiest %s: %s, %s (%s of the step)\n",
        tier.tier.c_str(), format(tier.bytes).c_str(), tier.links_used, top.name.c_str(),
        format(top.bytes).c_str(), format(top.busy).c_str(), percent(top.utilization).c_str());
    out << line;
  }
  if (!sum.critical_path.empty())
    out << wrapped("critical path: " + critical_path_line(sum.critical_path), 100, "  ",
                   "    ");
  print_memory(out, s);
  out << "  closed-form bound " << format(sum.bound) << " (largest term: " << sum.bound_limiting
      << "); simulated / bound = " << formatted("%.3f", sum.step_time / sum.bound) << "\n";
  if (!sum.blame.empty()) out << "    above the bound: " << sum.blame << "\n";
  if (sum.slowest_gpu > 1.0)
    out << "    slowest GPU: kernels x" << formatted("%.3f", sum.slowest_gpu)
        << " the preset's time (speed spread "
        << formatted("%.2f %%", 100 * s.system.gpu.speed_spread)
        << (s.faults.any() ? ", and the slow GPUs below" : "") << "; not in the bound)\n";
  for (const SlowGpus& g : s.faults.slow_gpus) out << "    fault: slow GPUs, " << describe(g) << "\n";
  for (const DegradedLinks& l : s.faults.degraded_links)
    out << "    fault: degraded link, " << describe(l) << "\n";
  for (const FailedPart& p : s.faults.failed) out << "    fault: " << describe(p) << "\n";
  out << "  simulated in " << formatted("%.2f", info.wall_s) << " s wall, " << info.activities
      << " SimGrid activities (" << info.fidelity << " mode";
  if (info.rail_bundle > 1) print_rail_bundle(out, info, !s.faults.failed.empty());
  if (info.replica_bundle > 1)
    out << "; replica bundling: DP replica 0 ran for all " << info.replica_bundle
        << " replicas, link statistics are its own";
  out << ")\n";
}

nlohmann::ordered_json result_json(const Scenario& s, const StepSummary& sum, const RunInfo& info) {
  nlohmann::ordered_json j;
  j["scenario"] = s.file;
  j["model"] = s.model.name;
  j["gpus"] = sum.gpus;
  ModelParameters params = model_parameters(s.model);
  j["parameters"] = {{"total", params.total},
                     {"active", params.active},
                     {"model_flop_per_token", (model_flop_per_step(s.model, s.execution) /
                                               tokens_per_step(s.model, s.execution))
                                                  .value()}};
  j["parallelism"] = {{"dp", s.execution.dp},
                      {"tp", s.execution.tp},
                      {"tp_2d", s.execution.tp_2d},
                      {"pp", s.execution.pp},
                      {"cp", s.execution.cp},
                      {"microbatches", sum.microbatches},
                      {"schedule", to_string(s.execution.schedule)}};
  j["step_time_s"] = sum.step_time.value();
  j["mfu"] = sum.mfu;
  j["hfu"] = sum.hfu;
  j["peak_flop_per_s"] = s.system.gpu.peak.value(); // what MFU and HFU are fractions of
  j["precision"] = s.model.precision;
  j["estimated_figures"] = estimated_figures(s);
  j["memory"] = memory_json(s);
  j["flop_per_s_per_gpu"] = {{"model", sum.model_flop_rate.value()},
                             {"hardware", sum.hardware_flop_rate.value()}};
  j["tokens_per_s"] = sum.tokens_per_s;
  j["slowest_gpu_slowdown"] = sum.slowest_gpu;
  nlohmann::ordered_json breakdown;
  for (const auto& [category, time] : sum.breakdown) breakdown[sim::name(category)] = time.value();
  j["breakdown"] = breakdown;
  nlohmann::ordered_json links;
  for (const TierLoad& tier : sum.tiers) {
    nlohmann::ordered_json busiest = nlohmann::ordered_json::array();
    for (const LinkLoad& l : tier.busiest)
      busiest.push_back({{"link", l.name},
                         {"bytes", l.bytes.value()},
                         {"busy_s", l.busy.value()},
                         {"utilization", l.utilization}});
    links[tier.tier] = {
        {"bytes", tier.bytes.value()}, {"links_used", tier.links_used}, {"busiest", busiest}};
  }
  j["links"] = links;
  if (const CriticalPath& p = sum.critical_path; !p.empty())
    j["critical_path"] = critical_path_json(p);
  nlohmann::ordered_json terms = nlohmann::ordered_json::array();
  for (const BoundTerm& t : sum.bound_terms)
    terms.push_back(
        {{"name", t.name}, {"seconds", t.time.value()}, {"explanation", t.explanation}});
  j["bound"] = {
      {"step_time_s", sum.bound.value()}, {"limiting", sum.bound_limiting}, {"terms", terms}};
  if (!sum.blame.empty()) j["bound"]["blame"] = sum.blame;
  j["sim"] = {{"fidelity", info.fidelity},
              {"activities", info.activities},
              {"rail_bundle", info.rail_bundle},
              {"rail_leader", info.rail_leader},
              {"own_rails", info.own_rails},
              {"replica_bundle", info.replica_bundle},
              {"wall_s", info.wall_s}};
  j["provenance"] = provenance_json(s);
  return j;
}

} // namespace trainsim
