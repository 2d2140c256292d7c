#include "tools/study/variant_runner.hpp"

#include <algorithm>
#include <thread>

#include <nlohmann/json.hpp>

#include "models/closed_form.hpp"
#include "models/error.hpp"
#include "sim/child_process.hpp"
#include "sim/progress.hpp"
#include "sim/simulation.hpp"
#include "tools/study/evaluate.hpp"
#include "tools/study/largest.hpp"
#include "sim/log.hpp"
#include "tools/formats/report.hpp"

// A variant's figures cross the pipe as JSON: a few numbers and strings.
template <>
struct trainsim::sim::Codec<trainsim::VariantResult> {
  static std::string encode(const VariantResult& r);
  static VariantResult decode(std::string_view bytes);
};

namespace trainsim {
namespace {

nlohmann::json to_json(const VariantResult& r) {
  return {{"gpus", r.gpus},         {"step", r.step_time_s},
          {"mfu", r.mfu},           {"tokens", r.tokens_per_s},
          {"tp", r.tp_comm_s},      {"pp", r.pp_comm_s},
          {"dp", r.dp_comm_s},      {"ep", r.ep_comm_s},
          {"cp", r.cp_comm_s},      {"bubble", r.bubble_s},
          {"tier", r.busiest_tier}, {"util", r.busiest_utilization},
          {"bound", r.bound_s},     {"limiting", r.bound_limiting},
          {"error", r.error},       {"last", r.last_ranks},
          {"links", r.busiest_links}, {"path", r.critical_path}};
}

VariantResult from_json(const nlohmann::json& j) {
  VariantResult r{j.at("gpus"), j.at("step"), j.at("mfu"),   j.at("tokens"),   j.at("tp"),
                  j.at("pp"),   j.at("dp"),   j.at("ep"),    j.at("cp"),       j.at("bubble"),
                  j.at("tier"), j.at("util"), j.at("bound"), j.at("limiting"), j.at("error")};
  j.at("last").get_to(r.last_ranks);
  j.at("links").get_to(r.busiest_links);
  j.at("path").get_to(r.critical_path);
  return r;
}

// The `count` ranks that finish last, latest first (lowest rank first among equals).
std::vector<std::pair<int, double>> last_ranks(const sim::SimResult& result, size_t count) {
  std::vector<std::pair<int, double>> ends;
  for (size_t r = 0; r < result.ranks.size(); ++r)
    ends.emplace_back(static_cast<int>(r), result.ranks[r].finish.value());
  keep_largest(ends, count);
  return ends;
}

// The `count` busiest link directions beyond the NVLink domains (where faults and contention
// between nodes show), by bytes over their bandwidth.
std::vector<std::pair<std::string, double>> busiest_links(const topo::Topology& t,
                                                          const std::vector<double>& bytes,
                                                          size_t count) {
  std::vector<std::pair<int, double>> busy;
  for (size_t c = 0; c < bytes.size(); ++c)
    if (bytes[c] > 0 && t.link(static_cast<int>(c / 2)).tier != topo::Tier::nvlink)
      busy.emplace_back(static_cast<int>(c),
                        bytes[c] / t.link(static_cast<int>(c / 2)).bandwidth.value());
  keep_largest(busy, count);
  std::vector<std::pair<std::string, double>> out;
  for (size_t i = 0; i < busy.size(); ++i)
    out.emplace_back(t.hop_name({busy[i].first / 2, busy[i].first % 2 == 0}), busy[i].second);
  return out;
}

} // namespace

std::string sim::Codec<VariantResult>::encode(const VariantResult& r) { return to_json(r).dump(); }
VariantResult sim::Codec<VariantResult>::decode(std::string_view bytes) {
  return from_json(nlohmann::json::parse(bytes));
}

VariantResult run_variant(const LoadedScenario& loaded, bool critical_path) {
  sim::SimOptions options{sim::Fidelity::fast, false, true, {}};
  options.critical_path = critical_path;
  Evaluation e = evaluate(loaded, options, 1);
  const StepSummary& sum = e.summary;
  using sim::Category;
  auto time = [&](Category c) { return sum.time(c).value(); };
  VariantResult r{sum.gpus,
                  sum.step_time.value(),
                  sum.mfu,
                  sum.tokens_per_s,
                  time(Category::tp_comm),
                  time(Category::pp_comm),
                  time(Category::dp_comm),
                  time(Category::ep_comm),
                  time(Category::cp_comm),
                  time(Category::bubble),
                  "",
                  0,
                  0,
                  "",
                  ""};
  for (const TierLoad& tier : sum.tiers) {
    if (tier.busiest.empty() || tier.busiest.front().utilization <= r.busiest_utilization) continue;
    r.busiest_tier = tier.tier;
    r.busiest_utilization = tier.busiest.front().utilization;
  }
  r.bound_s = sum.bound.value();
  r.bound_limiting = sum.bound_limiting;
  r.last_ranks = last_ranks(e.result, 3);
  r.busiest_links = busiest_links(loaded.topology, e.result.channel_bytes, 5);
  r.critical_path = critical_path_line(sum.critical_path);
  return r;
}

std::vector<VariantResult>
run_in_processes(const std::vector<std::function<VariantResult()>>& tasks, int jobs,
                 const std::string& command) {
  std::vector<VariantResult> results;
  sim::Progress progress(command, static_cast<double>(tasks.size()), "variants simulated",
                         sim::Progress::Show::count);
  for (sim::ChildResult<VariantResult>& r : sim::run_in_children(tasks, jobs, &progress)) {
    results.push_back(r.value ? *r.value : VariantResult{});
    if (!r.value) results.back().error = r.error;
  }
  return results;
}

VariantResult refused_variant(const std::string& why) {
  VariantResult r;
  r.error = why;
  r.refused = true;
  return r;
}

int table_exit_code(const std::vector<VariantResult>& results) {
  auto count = [&](const char* status) {
    return std::count_if(results.begin(), results.end(),
                         [&](const VariantResult& r) { return r.status() == status; });
  };
  long refused = count("refused"), failed = count("failed");
  if (refused > 0)
    logger("trainsim.input")
        ->warn("{} of {} variants refused, not simulated: their rows say why (status, error)",
               refused, results.size());
  if (failed > 0) return static_cast<int>(ExitCode::simulation);
  if (refused == static_cast<long>(results.size())) return static_cast<int>(ExitCode::input);
  return 0;
}

int default_jobs() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

} // namespace trainsim
