#include "tools/commands/goodput_command.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "models/error.hpp"
#include "models/goodput.hpp"
#include "models/params.hpp"
#include "tools/formats/goodput_plot.hpp"
#include "tools/formats/text.hpp"
#include "tools/io/output_file.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tools/study/checkpoint.hpp"
#include "tools/study/evaluate.hpp"

namespace trainsim {
namespace {

template <class Q>
Q quantity(const std::string& option, const std::string& text) {
  return Params("command line", "", {{option, text}}).get_positive<Q>(option);
}

// The scenario's section with the command line's options over it; what must be known
// (the storage's bandwidth, the restart) refused in one line where neither gives it.
ReliabilitySpec reliability(const GoodputOptions& o, const Scenario& s) {
  ReliabilitySpec r = s.reliability;
  if (!o.storage_bandwidth.empty())
    r.storage_bandwidth = quantity<BytesPerSecond>("--storage-bandwidth", o.storage_bandwidth);
  if (!o.restart.empty()) r.restart = quantity<Seconds>("--restart", o.restart);
  if (!o.interval.empty()) r.interval = quantity<Seconds>("--interval", o.interval);
  if (o.hours >= 0) r.duration = Seconds(o.hours * 3600);
  if (o.async) r.async = true;
  if (o.seed >= 0) r.seed = static_cast<std::uint64_t>(o.seed);
  if (!(r.storage_bandwidth > BytesPerSecond()))
    throw InputError(s.file, "reliability.storage_bandwidth: not given (nor --storage-bandwidth): "
                             "the storage tier's write bandwidth, a figure of the cluster");
  if (!(r.restart > Seconds()))
    throw InputError(s.file, "reliability.restart: not given (nor --restart): from a failure to "
                             "training again, a figure of the cluster's software");
  return r;
}

std::string hours(Seconds t) { return formatted("%.2f h", t.value() / 3600); }

// Each component's units, MTBF and share of the job's failures.
void print_components(const ReliabilitySpec& r, const Exposure& e) {
  for (int i = 0; i < kComponents; ++i) {
    auto c = static_cast<Component>(i);
    std::optional<Seconds> m = mtbf_of(r, c);
    if (!m) continue;
    std::cout << "    " << to_string(c) << ": " << e.units[static_cast<size_t>(i)]
              << " units at an MTBF of " << hours(*m) << " each: "
              << formatted("%.4f", failures_per_hour(r, e, c)) << " per hour"
              << (r.mtbf[static_cast<size_t>(i)] ? "" : " (Llama 3's)") << "\n";
  }
}

// The first-order goodput of the same job on `gpus` GPUs (the same rate per GPU), at its own
// Young-Daly interval; 0 where failures leave nothing.
double goodput_at_size(const GoodputInputs& in, int gpus) {
  GoodputInputs at = in;
  at.gpus = gpus;
  return std::max(0.0, first_order_goodput(at, young_daly_interval(at)));
}

GoodputCurves curves(const GoodputInputs& in, Seconds tau) {
  GoodputCurves c;
  for (double k = 1.0 / 16; k <= 16.0 + 1e-9; k *= 1.25)
    c.by_interval.push_back({tau.value() * k, std::max(0.0, first_order_goodput(in, tau * k))});
  c.chosen_interval = tau.value();
  for (double gpus = 1000; gpus <= 1e6 * 1.0001; gpus *= 1.25)
    c.by_size.push_back({gpus, goodput_at_size(in, static_cast<int>(gpus))});
  c.job_gpus = in.gpus;
  return c;
}

void print_sweeps(const GoodputInputs& in, Seconds tau) {
  std::cout << "  goodput against the checkpoint interval (first order):\n";
  for (double k : {0.25, 0.5, 1.0, 2.0, 4.0})
    std::cout << "    " << format(tau * k) << (k == 1.0 ? " (chosen)" : "") << "  "
              << percent(first_order_goodput(in, tau * k)) << "\n";
  std::cout << "  goodput against the cluster size (same rate per GPU, Young-Daly's interval):\n";
  for (int gpus : {1000, 10000, 100000, 1000000}) {
    GoodputInputs at = in;
    at.gpus = gpus;
    std::cout << "    " << gpus << " GPUs: MTBF " << hours(at.mtbf()) << ", interval "
              << format(young_daly_interval(at)) << ", goodput "
              << percent(goodput_at_size(in, gpus)) << "\n";
  }
}

void write_outputs(const std::string& dir, const GoodputInputs& in, const CheckpointPrice& c,
                   Seconds tau, double first, const GoodputRun& run) {
  std::filesystem::create_directories(dir);
  GoodputCurves plot = curves(in, tau);
  nlohmann::ordered_json j = {{"gpus", in.gpus},
                              {"failures_per_gpu_hour", in.failures_per_gpu_hour},
                              {"job_mtbf_s", in.mtbf().value()},
                              {"checkpoint_bytes", c.whole.value()},
                              {"checkpoint_write_s", c.write.value()},
                              {"checkpoint_stop_s", c.stop.value()},
                              {"restart_s", in.restart.value()},
                              {"interval_s", tau.value()},
                              {"goodput_first_order", first},
                              {"goodput_monte_carlo", run.goodput()},
                              {"failures", run.failures}};
  for (const GoodputPoint& p : plot.by_interval)
    j["by_interval"].push_back({{"interval_s", p.x}, {"goodput", p.goodput}});
  for (const GoodputPoint& p : plot.by_size)
    j["by_size"].push_back({{"gpus", p.x}, {"goodput", p.goodput}});
  write_text_file(dir + "/goodput.json", j.dump(2) + "\n");
  write_text_file(dir + "/goodput.svg", goodput_svg(plot));
}

} // namespace

int goodput_command(const GoodputOptions& o) {
  // The options first, so a typo fails before the step is simulated.
  if (o.hours == 0 || (o.hours < 0 && o.hours != -1))
    throw InputError("command line", "--hours: must be above 0");
  LoadedScenario loaded = load_scenario(o.scenario, LoadOptions{});
  const Scenario& s = loaded.scenario;
  ReliabilitySpec r = reliability(o, s);
  CheckpointPrice c = price_checkpoint(loaded, r);
  Evaluation step = evaluate(loaded, sim::SimOptions{});
  Exposure e = job_exposure(loaded, r);
  GoodputInputs in;
  in.gpus = s.execution.gpus();
  in.failures_per_gpu_hour = o.failures_per_gpu_hour > 0 ? o.failures_per_gpu_hour
                                                         : failures_per_hour(r, e) / in.gpus;
  in.checkpoint = c.stop;
  in.restart = r.restart;
  Seconds tau = r.interval ? *r.interval : young_daly_interval(in);
  GoodputRun run = monte_carlo_goodput(in, tau, r.duration, r.seed);
  std::cout << s.file << ": " << in.gpus << " GPUs, step " << format(step.summary.step_time)
            << "\n  failures      " << formatted("%.4f", in.failures_per_gpu_hour * in.gpus)
            << " per hour, a job MTBF of " << hours(in.mtbf())
            << (o.failures_per_gpu_hour > 0 ? " (--failures-per-gpu-hour)" : ", summed over:")
            << "\n";
  if (o.failures_per_gpu_hour <= 0) print_components(r, e);
  std::cout << "  checkpoint    " << format(c.whole) << " (weights and optimizer state), "
            << format(c.per_gpu) << " on the fullest GPU; written to " << r.storage_nodes
            << " storage servers (" << format(r.storage_bandwidth) << " in all"
            << (r.storage_network > BytesPerSecond()
                    ? ", on a network of their own at " + format(r.storage_network) + " a host"
                    : std::string(", over the training fabric"))
            << ") in " << format(c.write) << " (simulated)"
            << (r.async ? ", asynchronously: the job stops for the host copy, "
                        : ", synchronously: the job stops ")
            << format(c.stop) << "\n  restart       " << format(in.restart)
            << "\n  interval      " << format(tau)
            << (r.interval ? " (given)" : " (Young-Daly: sqrt(2 C M))") << "\n";
  if (r.async && c.write > tau)
    std::cout << "  note          the background write (" << format(c.write)
              << ") outlasts the interval: checkpoints would queue\n";
  double first = first_order_goodput(in, tau);
  std::cout << "  goodput       " << percent(first) << " first order; " << percent(run.goodput())
            << " by Monte-Carlo over " << hours(r.duration) << " (seed " << r.seed << ": "
            << run.failures << " failures, " << run.checkpoints << " checkpoints)\n"
            << "  tokens/s      " << step.summary.tokens_per_s * run.goodput()
            << " effective, of " << step.summary.tokens_per_s << " while training\n";
  print_sweeps(in, tau);
  if (!o.out.empty()) {
    write_outputs(o.out, in, c, tau, first, run);
    std::cout << "  wrote         " << o.out << "/goodput.json and goodput.svg "
              << "(trainsim report " << o.out << " shows the plot beside a run's result)\n";
  }
  return 0;
}

void add_goodput_command(CLI::App& app, cli::Command& command) {
  auto [cmd, g] = cli::add_command<GoodputOptions>(
      app, command, "goodput",
      "what a long run of a scenario delivers when components fail: checkpoint, Young-Daly "
      "interval, goodput (docs/faults.md)",
      goodput_command);
  cmd->add_option("scenario", g.scenario, "scenario file")->required();
  cmd->add_option("--storage-bandwidth", g.storage_bandwidth,
                  "write bandwidth of the storage tier, all of it (e.g. 1TB/s; default: "
                  "reliability.storage_bandwidth)");
  cmd->add_option("--restart", g.restart,
                  "from a failure to training again (e.g. 600s; default: reliability.restart)");
  cmd->add_option("--interval", g.interval,
                  "checkpoint interval (default: reliability.interval, else Young-Daly's)");
  cmd->add_option("--hours", g.hours, "the run's wall time in hours (default: 720)");
  cmd->add_option("--failures-per-gpu-hour", g.failures_per_gpu_hour,
                  "one job-stopping rate per GPU-hour instead of the components' MTBFs");
  cmd->add_flag("--async", g.async, "copy to host memory, then write beside the steps");
  cmd->add_option("--seed", g.seed, "the Monte-Carlo's seed (default 1)");
  cmd->add_option("-o,--out", g.out, "directory for goodput.json and goodput.svg");
}

} // namespace trainsim
