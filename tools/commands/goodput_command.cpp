#include "tools/commands/goodput_command.hpp"

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "models/error.hpp"
#include "models/goodput.hpp"
#include "models/params.hpp"
#include "models/workload.hpp"
#include "tools/formats/text.hpp"
#include "tools/io/scenario_loader.hpp"
#include "tools/study/evaluate.hpp"

namespace trainsim {
namespace {

template <class Q>
Q quantity(const std::string& option, const std::string& text) {
  return Params("command line", "", {{option, text}}).get_positive<Q>(option);
}

// The GPU's link to host memory (the host tier's, PCIe), which an asynchronous checkpoint's
// copy crosses; 0 where the fabric has none (a torus, an imported graph without hosts).
BytesPerSecond host_link(const topo::Topology& t) {
  const topo::Graph& g = t.graph();
  for (int id = 0; id < t.link_count(); ++id) {
    auto [a, b] = t.link_ends(id);
    bool gpu0 = (g[a].kind == topo::VertexKind::gpu && g[a].index == 0) ||
                (g[b].kind == topo::VertexKind::gpu && g[b].index == 0);
    if (gpu0 && t.link(id).tier == topo::Tier::host) return t.link(id).bandwidth;
  }
  return BytesPerSecond(0);
}

struct Checkpoint {
  Bytes whole;    ///< the model's weights and optimizer state, once
  Bytes per_gpu;  ///< the most any GPU holds of them
  Seconds stop;   ///< what the job stops for
  Seconds write;  ///< the write to storage
};

// Synchronous: the job waits for the whole state to reach storage, and at least for each
// GPU's copy over its host link. Asynchronous: it waits for the host copy only; the write
// goes on beside the steps.
Checkpoint price_checkpoint(const GoodputOptions& o, const LoadedScenario& loaded) {
  const Scenario& s = loaded.scenario;
  Checkpoint c;
  double word = layer_shape(s.model).bytes_per_word.value();
  c.whole = Bytes(model_parameters(s.model).total *
                  (word + s.execution.optimizer_bytes_per_param.value()));
  for (const MemoryUse& m : memory_per_stage(s.model, s.execution))
    c.per_gpu = std::max(c.per_gpu, m.weights + m.optimizer);
  c.write = Seconds(c.whole.value() /
                    quantity<BytesPerSecond>("--storage-bandwidth", o.storage_bandwidth).value());
  BytesPerSecond host = host_link(loaded.topology);
  if (o.async && host.value() <= 0)
    throw InputError("command line", "--async: copies each GPU's state to host memory, and this fabric (" +
                         s.system.topology.generator + ") has no host link");
  Seconds copy = host.value() > 0 ? Seconds(c.per_gpu.value() / host.value()) : Seconds();
  c.stop = o.async ? copy : std::max(copy, c.write);
  return c;
}

std::string hours(Seconds t) { return formatted("%.2f h", t.value() / 3600); }

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
              << percent(std::max(0.0, first_order_goodput(at, young_daly_interval(at)))) << "\n";
  }
}

} // namespace

int goodput_command(const GoodputOptions& o) {
  // The options first, so a typo fails before the step is simulated.
  Seconds restart = quantity<Seconds>("--restart", o.restart);
  std::optional<Seconds> interval;
  if (!o.interval.empty()) interval = quantity<Seconds>("--interval", o.interval);
  if (!(o.hours > 0)) throw InputError("command line", "--hours: must be above 0");
  LoadedScenario loaded = load_scenario(o.scenario, LoadOptions{});
  const Scenario& s = loaded.scenario;
  Checkpoint c = price_checkpoint(o, loaded);
  Evaluation step = evaluate(loaded, sim::SimOptions{});
  GoodputInputs in;
  in.gpus = s.execution.gpus();
  if (o.failures_per_gpu_hour > 0) in.failures_per_gpu_hour = o.failures_per_gpu_hour;
  in.checkpoint = c.stop;
  in.restart = restart;
  Seconds tau = interval ? *interval : young_daly_interval(in);
  Seconds wall(o.hours * 3600);
  GoodputRun run = monte_carlo_goodput(in, tau, wall, o.seed);
  std::cout << s.file << ": " << in.gpus << " GPUs, step " << format(step.summary.step_time)
            << "\n  failures      " << in.failures_per_gpu_hour << " per GPU-hour"
            << (o.failures_per_gpu_hour > 0 ? "" : " (Llama 3's: 419 in 54 days on 16,384 GPUs)")
            << ": a job MTBF of " << hours(in.mtbf())
            << "\n  checkpoint    " << format(c.whole) << " (weights and optimizer state), "
            << format(c.per_gpu) << " on the fullest GPU; written in " << format(c.write)
            << (o.async ? ", asynchronously: the job stops " : ", synchronously: the job stops ")
            << format(c.stop) << "\n  restart       " << format(in.restart)
            << "\n  interval      " << format(tau)
            << (o.interval.empty() ? " (Young-Daly: sqrt(2 C M))" : " (given)") << "\n";
  if (o.async && c.write > tau)
    std::cout << "  note          the background write (" << format(c.write)
              << ") outlasts the interval: checkpoints would queue\n";
  double first = first_order_goodput(in, tau);
  std::cout << "  goodput       " << percent(first) << " first order; " << percent(run.goodput())
            << " by Monte-Carlo over " << hours(wall) << " (seed " << o.seed << ": "
            << run.failures << " failures, " << run.checkpoints << " checkpoints)\n"
            << "  tokens/s      " << step.summary.tokens_per_s * run.goodput()
            << " effective, of " << step.summary.tokens_per_s << " while training\n";
  print_sweeps(in, tau);
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
                  "write bandwidth of the storage tier, all of it (e.g. 1TB/s)")
      ->required();
  cmd->add_option("--restart", g.restart, "from a failure to training again (e.g. 600s)")
      ->required();
  cmd->add_option("--interval", g.interval, "checkpoint interval (default: Young-Daly's)");
  cmd->add_option("--hours", g.hours, "the run's wall time in hours (default 720)");
  cmd->add_option("--failures-per-gpu-hour", g.failures_per_gpu_hour,
                  "job-stopping failures per GPU-hour (default: Llama 3's, 1.97e-5)");
  cmd->add_flag("--async", g.async, "copy to host memory, then write beside the steps");
  cmd->add_option("--seed", g.seed, "the Monte-Carlo's seed (default 1)");
}

} // namespace trainsim
