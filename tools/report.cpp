#include "tools/report.hpp"

#include <cstdio>

#include "models/workload.hpp"

namespace trainsim {
namespace {

std::string percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f %%", 100.0 * fraction);
  return buffer;
}

std::string fixed(double value, const char* format_string) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format_string, value);
  return buffer;
}

} // namespace

StepSummary summarize(const Scenario& s, const sim::SimResult& r) {
  StepSummary out;
  out.gpus = s.execution.gpus();
  out.microbatches = s.execution.microbatches();
  out.step_time = r.step_time;
  double peak = (s.system.gpu.peak * r.step_time).value() * out.gpus;
  out.mfu = model_flop_per_step(s.model, s.execution).value() / peak;
  out.tokens_per_s = tokens_per_step(s.model, s.execution) / r.step_time.value();
  sim::RankStats total;
  for (const auto& rank : r.ranks) {
    total.compute += rank.compute;
    total.tp += rank.tp;
    total.pp += rank.pp;
    total.dp += rank.dp;
    total.ep += rank.ep;
    total.bubble += rank.bubble;
    total.finish += rank.finish;
  }
  double n = static_cast<double>(r.ranks.size());
  // Every rank's categories add up to its finish time; the rest of the step it idles. Below
  // a picosecond the difference is rounding in the sums, not idling.
  Seconds idle = r.step_time - total.finish / n;
  if (idle.value() < 1e-12) idle = Seconds();
  out.breakdown = {{"compute", total.compute / n}, {"tp_comm", total.tp / n}, {"pp_comm", total.pp / n},
                   {"dp_comm", total.dp / n},      {"ep_comm", total.ep / n},    {"bubble", total.bubble / n},
                   {"idle", idle}};
  return out;
}

void print_report(std::ostream& out, const Scenario& s, const topo::Topology& t, const StepSummary& sum,
                  const RunInfo& info) {
  const ExecutionSpec& e = s.execution;
  out << s.file << ": " << s.model.name << " on " << sum.gpus << " GPUs (" << t.gpu_count() / t.gpus_per_node()
      << " nodes), DP " << e.dp << " x TP " << e.tp << " x PP " << e.pp << ", " << to_string(e.schedule) << ", "
      << sum.microbatches << " microbatches of " << e.micro_batch << "\n";
  out << "  step time     " << format(sum.step_time) << "\n";
  out << "  MFU           " << percent(sum.mfu) << "\n";
  out << "  tokens/s      " << fixed(sum.tokens_per_s, "%.4g") << "\n";
  out << "  breakdown (mean per GPU, adds up to the step time)\n";
  for (const auto& [name, time] : sum.breakdown) {
    char line[96];
    std::snprintf(line, sizeof line, "    %-10s %12s  %6s\n", name.c_str(), format(time).c_str(),
                  percent(time / sum.step_time).c_str());
    out << line;
  }
  out << "  closed-form bound " << format(sum.bound) << " (largest term: " << sum.bound_limiting
      << "); simulated / bound = " << fixed(sum.step_time / sum.bound, "%.3f") << "\n";
  out << "  simulated in " << fixed(info.wall_s, "%.2f") << " s wall, " << info.activities << " SimGrid activities ("
      << info.fidelity << " mode)\n";
}

nlohmann::ordered_json result_json(const Scenario& s, const StepSummary& sum, const RunInfo& info) {
  nlohmann::ordered_json j;
  j["scenario"] = s.file;
  j["model"] = s.model.name;
  j["gpus"] = sum.gpus;
  j["parallelism"] = {{"dp", s.execution.dp}, {"tp", s.execution.tp}, {"pp", s.execution.pp},
                      {"microbatches", sum.microbatches}, {"schedule", to_string(s.execution.schedule)}};
  j["step_time_s"] = sum.step_time.value();
  j["mfu"] = sum.mfu;
  j["tokens_per_s"] = sum.tokens_per_s;
  nlohmann::ordered_json breakdown;
  for (const auto& [name, time] : sum.breakdown) breakdown[name] = time.value();
  j["breakdown"] = breakdown;
  j["bound"] = {{"step_time_s", sum.bound.value()}, {"limiting", sum.bound_limiting}};
  j["sim"] = {{"fidelity", info.fidelity}, {"activities", info.activities}, {"wall_s", info.wall_s}};
  return j;
}

} // namespace trainsim
