// Section 5 of docs/validation.md (the frontier replayed) and its finding.
#include "tools/formats/validation_frontier.hpp"
#include "tools/formats/text.hpp"

#include "models/scenario.hpp"

#include <algorithm>
#include <cmath>

namespace trainsim {
namespace {

// "+9.1%: tp_comm +4.5, kernels +2.6, pipeline +1.5": the overlapped replay's step against
// the closed form's, and its causes (gap_causes()) over 0.05% of the closed form's step,
// largest first.
std::string gap_text(const FrontierCheck& c) {
  std::vector<GapCause> causes = c.gap;
  std::sort(causes.begin(), causes.end(), [](const GapCause& a, const GapCause& b) {
    return std::abs(a.seconds) > std::abs(b.seconds);
  });
  std::string out = formatted("%+.1f%%", 100 * (c.step_sim_s / c.step_closed_s - 1));
  const char* separator = ": ";
  for (const GapCause& cause : causes) {
    double share = 100 * cause.seconds / c.step_closed_s;
    if (std::abs(share) < 0.05) continue;
    out += separator + cause.cause + formatted(" %+.1f", share);
    separator = ", ";
  }
  return out;
}

// {"kernels": 0.21, ...}: the causes in seconds.
nlohmann::json gap_json(const std::vector<GapCause>& gap) {
  nlohmann::json j = nlohmann::json::object();
  for (const GapCause& cause : gap) j[cause.cause] = cause.seconds;
  return j;
}

// One row per replayed point of the kind `two_d` asks for.
std::string frontier_rows(const ValidationReport& r, bool two_d) {
  std::string out = markdown_header(
      {"training FLOP", "plan", "GPUs", "closed-form utilization", "simulated MFU, overlapped",
       "simulated MFU, nothing overlapped", "closed-form step (s)",
       "simulated step (s), overlapped / not", "closed form's binding term",
       "step against the closed form's, by cause (% of its step)", "simulated step, by category",
       "largest phase, busiest link"});
  for (const FrontierCheck& c : r.frontier)
    if (c.two_d == two_d)
      out += markdown_row(
          {formatted("%.3g", c.compute_flop),
           c.bundled > 1 ? c.plan + ", bundled (replica 0 for " + std::to_string(c.bundled) + ")"
                        : c.plan,
           std::to_string(c.gpus), formatted("%.1f%%", 100 * c.closed_form_utilization),
           formatted("%.1f%%", 100 * c.simulated_mfu),
           formatted("%.1f%%", 100 * c.simulated_mfu_serial), formatted("%.3g", c.step_closed_s),
           formatted("%.3g", c.step_sim_s) + " / " + formatted("%.3g", c.step_sim_serial_s), c.note,
           gap_text(c), c.breakdown, c.blame});
  return out;
}

// "1e+27": the largest training FLOP replayed with 1-D or 2-D TP, as the rows print it.
std::string largest_flop(const ValidationReport& r, bool two_d) {
  double largest = 0;
  for (const FrontierCheck& c : r.frontier)
    if (c.two_d == two_d) largest = std::max(largest, c.compute_flop);
  return formatted("%.3g", largest);
}

} // namespace

std::string frontier_section(const ValidationReport& r) {
  std::string out =
      "## 5. The frontier, replayed\n\n"
      "Dense frontier points (H100 baseline, 3 months) as the MLP-only scenarios `trainsim "
      "frontier --scenarios DIR` writes (ZeRO-1, 1F1B, rail-optimized nodes of 8 GPUs, or of one "
      "TP block when it does not divide 8, on a non-blocking tree whose switches spray each "
      "flow's packets over all equal-cost paths, as InfiniBand's adaptive routing does, "
      "`ecmp: spray`, which keeps large replays bundled), simulated for one step twice. "
      "First with the paper's overlap as far as the simulator runs it, the scenario's settings: "
      "TP collectives pipelined with their kernels in " +
      std::to_string(kTpOverlapSplits) +
      " splits (`tp_overlap`), run where the TP block is inside a node as Transformer Engine's "
      "userbuffers kernels run them, each GPU "
      "exchanging with all its peers at once (`tp_collective: direct`), kernel launches "
      "queued ahead of the kernels, so that a kernel takes the longer of its work and its "
      "launch (`launch_overlap`, the paper's latency as a bound of its own), and the DP "
      "reduction of the previous step's gradients beside the whole step, a one-step delayed "
      "update (`delayed_update`); its breakdown and busiest link are shown. Then with nothing "
      "overlapped (NCCL's rings for TP, and every launch before its kernel). The closed form takes "
      "the max of its terms (compute, "
      "memory, network, "
      "latency), of the pipeline, of the DP all-reduce and of each tier's bytes of the whole "
      "step (the pipeline's and the all-reduce's, which share its links, as the paper's V sums "
      "them), as the paper does: it hides all TP "
      "communication behind compute and the DP all-reduce behind the whole pipeline. The "
      "delayed update runs the latter, its traffic sharing the links with the step's (the "
      "paper's memory model does not count its second gradient buffer: where that does not fit "
      "in 80 GB, the plan column gives the HBM the replay's GPU got). A block's TP collectives "
      "cannot all hide: the next block needs their result, so a replay exposes the last of "
      "their splits (and all that outlasts the kernels), as Transformer Engine's overlap does. "
      "The column \"by cause\" splits each overlapped replay's step against the closed form's "
      "into parts that add up to the difference (`gap_causes()`, tools/study/validation.hpp): "
      "`kernels`, the replay's compute beyond the closed form's kernels (launches, 4 us each, "
      "where a kernel's work does not cover them; negative where the mean GPU holds fewer "
      "layers than the closed form's most loaded stage, whose wait then shows as `idle`); each "
      "communication category the replay exposed (`dp_comm` less what the closed form's DP "
      "all-reduce outlasts its pipeline by); `pipeline`, the bubble and pipeline transfers "
      "beyond the closed form's bubble; `idle`; and, negative, what a binding network or "
      "latency term adds to the closed form's stage beyond its kernels, and what the busier "
      "tier's bytes of the whole step (every microbatch's and the DP all-reduce's, which share "
      "its links) add to the closed form's step beyond the pipeline and the all-reduce.\n\n"
      "**1-D tensor parallelism, to " +
      largest_flop(r, false) +
      " FLOP**: the plan the closed form chose among 1-D TP plans (`--max-tp-2d 1`), whose "
      "knee is 4.8e26.\n\n" +
      frontier_rows(r, false);
  if (std::any_of(r.frontier.begin(), r.frontier.end(), [](auto& c) { return c.two_d; }))
    out += "\n**2-D tensor parallelism, to " + largest_flop(r, true) +
           " FLOP**: the closed form's own plan (`execution.tp_2d`, the paper's N_J), where it "
           "uses a second TP axis. A TP block that divides neither 8 nor into nodes with its "
           "second axis inside is one node (NVLink for both axes, where the closed form priced "
           "the first axis on the network); one that spans nodes of 8 with a second axis "
           "narrower than the node runs every GPU's flows and is replayed up to " +
           with_thousands(kUnbundledReplayGpus) +
           " GPUs. "
           "From 1e26 the second axis is the node and the first spans 8 nodes, as the closed "
           "form's tiers put them: the first axis's collectives run as NCCL's PAT over the "
           "network (`tp_collective: pat`), each of a collective's " +
           std::to_string(kTpOverlapSplits) +
           " splits a call of its own that pays its steps' latencies, which the closed form's max "
           "of its terms does not add to the compute. Plans of more than " +
           with_thousands(kReplicaBundlingGpus) +
           " GPUs are replayed bundled (`trainsim run --bundle-replicas`, docs/fast-mode.md, "
           "\"Replica bundling\"): DP replica 0 runs for all, each DP ring sending to the next "
           "node of its own TP block, and the busiest link is replica 0's. That is an estimate: "
           "on the 1e26 and 1.78e26 plans the bundled step was 0.4% and 2.4% shorter than the "
           "unbundled one, because SimGrid shares a link by route latency and the bundled rings "
           "stay on a leaf.\n\n" +
           frontier_rows(r, true);
  if (!r.skipped.empty()) out += "\nNot replayed:\n\n";
  for (const std::string& s : r.skipped) out += "- " + s + "\n";
  return out + "\n";
}

// The frontier replay's gap, from this run's points (none in quick mode).
std::string frontier_finding(const ValidationReport& r) {
  if (r.frontier.empty()) return "";
  double low = 1e300, high = -1e300;
  int close = 0;
  for (const FrontierCheck& c : r.frontier) {
    double gap = 100 * (c.closed_form_utilization - c.simulated_mfu);
    low = std::min(low, gap), high = std::max(high, gap);
    close += c.simulated_mfu >= 0.95 * c.closed_form_utilization ? 1 : 0;
  }
  // The largest share of the closed form's step each cause takes over the points.
  std::vector<GapCause> largest;
  for (const FrontierCheck& c : r.frontier)
    for (const GapCause& cause : c.gap) {
      auto it = std::find_if(largest.begin(), largest.end(),
                             [&](const GapCause& l) { return l.cause == cause.cause; });
      double share = 100 * cause.seconds / c.step_closed_s;
      if (it == largest.end())
        largest.push_back({cause.cause, share});
      else if (share > it->seconds)
        it->seconds = share;
    }
  std::string causes;
  for (const GapCause& l : largest)
    if (l.seconds >= 0.05)
      causes += (causes.empty() ? "" : ", ") + l.cause + formatted(" up to %+.1f%%", l.seconds);
  return "7. **The frontier's closed form is optimistic.** Replaying its chosen plans (section "
         "5) with the paper's overlap as far as it can run (TP collectives pipelined with their "
         "kernels, the DP reduction beside the whole step by a delayed update), the simulated "
         "MFU is " +
         formatted("%.0f", low) + " to " + formatted("%.0f", high) +
         " points below the closed form's utilization; " + std::to_string(close) + " of " +
         std::to_string(r.frontier.size()) +
         " points come within 5% of it. The closed form, like the paper, hides all TP "
         "communication behind compute and the pipeline's transfers, while a replay exposes the "
         "last split of each block's TP collectives and waits for the transfers its schedule "
         "needs, and shares the links among the step's traffic and the reduction. "
         "Section 5 splits every difference into its causes; the largest share of the closed "
         "form's step each reaches over the points: " +
         causes + ".\n";
}

nlohmann::ordered_json frontier_json(const ValidationReport& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const FrontierCheck& c : r.frontier)
    j.push_back({{"flop", c.compute_flop},
                 {"plan", c.plan},
                 {"gpus", c.gpus},
                 {"closed_form_utilization", c.closed_form_utilization},
                 {"simulated_mfu", c.simulated_mfu},
                 {"step_closed_s", c.step_closed_s},
                 {"step_sim_s", c.step_sim_s},
                 {"simulated_mfu_serial", c.simulated_mfu_serial},
                 {"step_sim_serial_s", c.step_sim_serial_s},
                 {"binding", c.note},
                 {"two_d", c.two_d},
                 {"bundled_replicas", c.bundled},
                 {"blame", c.blame},
                 {"gap_s", gap_json(c.gap)},
                 {"simulated_breakdown", c.breakdown}});
  return j;
}

} // namespace trainsim
