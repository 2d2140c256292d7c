#include "tools/study/variant_runner.hpp"

#include <algorithm>
#include <cerrno>
#include <map>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "models/closed_form.hpp"
#include "models/error.hpp"
#include "sim/simulation.hpp"
#include "tools/study/fabric_summary.hpp"
#include "sim/log.hpp"
#include "tools/formats/report.hpp"

namespace trainsim {
namespace {

nlohmann::json to_json(const VariantResult& r) {
  return {{"gpus", r.gpus},           {"step", r.step_time_s},     {"mfu", r.mfu},
          {"tokens", r.tokens_per_s}, {"tp", r.tp_comm_s},         {"pp", r.pp_comm_s},
          {"dp", r.dp_comm_s},        {"ep", r.ep_comm_s},         {"bubble", r.bubble_s},
          {"tier", r.busiest_tier},   {"util", r.busiest_utilization}, {"bound", r.bound_s},
          {"limiting", r.bound_limiting}, {"error", r.error}};
}

VariantResult from_json(const nlohmann::json& j) {
  return {j.at("gpus"),  j.at("step"), j.at("mfu"),   j.at("tokens"), j.at("tp"),       j.at("pp"),
          j.at("dp"),    j.at("ep"),   j.at("bubble"), j.at("tier"),  j.at("util"),     j.at("bound"),
          j.at("limiting"), j.at("error")};
}

double category(const StepSummary& s, const std::string& name) {
  for (const auto& [n, t] : s.breakdown)
    if (n == name) return t.value();
  return 0;
}

struct Child {
  pid_t pid = -1;
  int fd = -1;
  size_t task = 0;
};

// In the child: run the task, write its result as JSON to `fd`, leave without running the
// parent's exit handlers.
[[noreturn]] void run_child(const std::function<VariantResult()>& task, int fd) {
  VariantResult r;
  try {
    r = task();
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  std::string text = to_json(r).dump();
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) done += static_cast<size_t>(n);
  }
  _exit(0);
}

Child start(const std::function<VariantResult()>& task, size_t index) {
  int fds[2];
  if (pipe(fds) != 0) throw Error(ExitCode::simulation, "cannot create a pipe for a variant process");
  pid_t pid = fork();
  if (pid < 0) throw Error(ExitCode::simulation, "cannot fork a variant process");
  if (pid == 0) {
    close(fds[0]);
    run_child(task, fds[1]);
  }
  close(fds[1]);
  return {pid, fds[0], index};
}

// Reads the child's whole answer (before waiting, so a large one cannot block it), then reaps it.
VariantResult finish(const Child& c) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(c.fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(c.fd);
  int status = 0;
  waitpid(c.pid, &status, 0);
  VariantResult r;
  try {
    r = from_json(nlohmann::json::parse(text));
  } catch (const nlohmann::json::exception&) {
    r.error = "the variant's process died (status " + std::to_string(status) + ")";
  }
  return r;
}

} // namespace

VariantResult run_variant(const LoadedScenario& loaded) {
  const Scenario& s = loaded.scenario;
  sim::SimResult result = sim::simulate(s, loaded.topology, {sim::Fidelity::fast, false, true, {}});
  StepSummary sum = summarize(s, result);
  VariantResult r{sum.gpus, sum.step_time.value(), sum.mfu, sum.tokens_per_s, category(sum, "tp_comm"),
                  category(sum, "pp_comm"), category(sum, "dp_comm"), category(sum, "ep_comm"),
                  category(sum, "bubble"), "", 0, 0, "", ""};
  for (const TierLoad& tier : summarize_links(loaded.topology, result.channel_bytes, result.step_time, 1)) {
    if (tier.busiest.empty() || tier.busiest.front().utilization <= r.busiest_utilization) continue;
    r.busiest_tier = tier.tier;
    r.busiest_utilization = tier.busiest.front().utilization;
  }
  BoundResult bound = closed_form_bound(s, fabric_summary(loaded.topology, s.execution));
  r.bound_s = bound.step_time.value();
  r.bound_limiting = limiting_text(bound);
  return r;
}

std::vector<VariantResult> run_in_processes(const std::vector<std::function<VariantResult()>>& tasks, int jobs) {
  std::vector<VariantResult> results(tasks.size());
  std::vector<Child> running;
  size_t next = 0;
  auto log = logger("trainsim.variants");
  while (next < tasks.size() || !running.empty()) {
    while (next < tasks.size() && static_cast<int>(running.size()) < std::max(jobs, 1)) {
      running.push_back(start(tasks[next], next));
      ++next;
    }
    // The oldest first: results are collected in order, and runs take similar times.
    Child c = running.front();
    running.erase(running.begin());
    results[c.task] = finish(c);
    log->info("variant {} of {} done{}", c.task + 1, tasks.size(), results[c.task].error.empty() ? "" : " (failed)");
  }
  return results;
}

int default_jobs() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

} // namespace trainsim
