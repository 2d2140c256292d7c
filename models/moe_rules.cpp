#include "models/moe_rules.hpp"

#include <string>

#include "models/collectives.hpp"
#include "models/params.hpp"
#include "models/scenario_rules.hpp"

namespace trainsim {
namespace {

// A capacity factor bounds each expert's tokens: it needs experts, and one below 1 / experts
// would keep fewer routed tokens over all experts than a single expert's balanced share.
void check_capacity(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  const ModelSpec& m = s.model;
  double c = e.moe_capacity_factor;
  std::string value = Params::text_of(c);
  if (c > 0 && m.experts <= 1)
    broken_rule(s, "execution.moe_capacity_factor", value, experts_only(m.experts));
  if (c > 0 && c * m.experts < 1.0)
    broken_rule(s, "execution.moe_capacity_factor", value,
                "must be at least 1 / experts (" + Params::text_of(1.0 / m.experts) +
                    "): below it all " + std::to_string(m.experts) +
                    " experts together keep less than one expert's balanced share");
  if (e.moe_pad_to_capacity && c <= 0)
    broken_rule(s, "execution.moe_pad_to_capacity", "true",
                "needs moe_capacity_factor: without one no expert has a capacity to pad to");
}

// Megatron-Core's all-gather dispatcher gathers over the TP x EP group (tp_ep_group), which
// has no group of its own here: with TP it is refused rather than priced over EP alone.
void check_dispatcher(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  if (e.moe_dispatcher == MoeDispatcher::alltoall) return;
  std::string value = to_string(e.moe_dispatcher);
  if (s.model.experts <= 1)
    broken_rule(s, "execution.moe_dispatcher", value, experts_only(s.model.experts));
  if (e.tp > 1)
    broken_rule(
        s, "execution.moe_dispatcher", value,
        "with tp > 1 gathers over the TP x EP group (Megatron-Core's tp_ep_group), which is "
        "not modelled: use tp 1 or moe_dispatcher: alltoall");
}

// An expert all-to-all other than the default needs experts and the all-to-all dispatcher; one
// that forwards inside nodes (DeepEP's) needs an NVLink domain of more than one GPU (an
// imported fabric's is known only once built, and is let through).
void check_ep_collective(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  const std::string& name = e.ep_collective;
  const CollectiveInfo* info = find_collective(name);
  if (info == nullptr || name == default_collective(CollectiveOp::all_to_all)) return;
  if (s.model.experts <= 1)
    broken_rule(s, "execution.ep_collective", name, experts_only(s.model.experts));
  if (e.moe_dispatcher != MoeDispatcher::alltoall)
    broken_rule(s, "execution.ep_collective", name,
                "is an all-to-all; moe_dispatcher: " + to_string(e.moe_dispatcher) +
                    " sends no all-to-all (set moe_dispatcher: alltoall)");
  if (info->node_hops && s.system.topology.gpus_per_node() == 1)
    broken_rule(s, "execution.ep_collective", name,
                "forwards over NVLink inside a node, and this fabric's nodes have one GPU each");
}

// The imbalance is between EP ranks, whose shares run from 1 - it to 1 + it: it needs experts
// over more than one rank and lies in [0, 1]. DeepEP's two hops deduplicate by uniform routing
// (deepep_network_share), which an imbalance breaks: refused rather than priced wrongly.
void check_imbalance(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  double v = e.moe_imbalance;
  std::string value = Params::text_of(v);
  if (v < 0 || v > 1)
    broken_rule(
        s, "execution.moe_imbalance", value,
        "must be between 0 (balanced) and 1 (the busiest EP rank twice its share, the idlest "
        "none)");
  if (v == 0) return;
  if (s.model.experts <= 1)
    broken_rule(s, "execution.moe_imbalance", value, experts_only(s.model.experts));
  if (e.ep <= 1)
    broken_rule(
        s, "execution.moe_imbalance", value,
        "spreads the tokens unevenly over EP ranks, and ep is 1 (every rank holds every expert)");
  const CollectiveInfo* a2a = find_collective(e.ep_collective);
  if (a2a != nullptr && a2a->node_hops)
    broken_rule(s, "execution.moe_imbalance", value,
                "is not modelled with ep_collective: " + e.ep_collective +
                    ", whose node hops assume uniform routing (use pairwise)");
}

// Megatron-Core's combined 1F1B: EP all-to-alls to overlap (ep > 1, the all-to-all
// dispatcher: the all-gather one has no dispatch and combine nodes), and under pipeline
// parallelism virtual stages (its multi-stage form extends the interleaved schedule), as its
// startup checks require. Not built beside full recomputation (the backward's recomputed
// forward has all-to-alls of its own) or activation offloading.
void check_ep_overlap(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  if (e.delay_wgrad_compute && !e.ep_overlap)
    broken_rule(
        s, "execution.delay_wgrad_compute", "true",
        "is built only under ep_overlap, where it lets a backward's dispatch start before its "
        "experts' weight gradients");
  if (!e.ep_overlap) return;
  auto refuse = [&](const std::string& why) {
    broken_rule(s, "execution.ep_overlap", "true", why);
  };
  if (s.model.experts <= 1) refuse(experts_only(s.model.experts));
  if (e.ep <= 1) refuse("overlaps expert-parallel all-to-alls, and ep is 1 (there are none)");
  if (e.moe_dispatcher != MoeDispatcher::alltoall)
    refuse("needs moe_dispatcher: alltoall (Megatron-Core's all-gather dispatcher has no "
           "dispatch and combine to overlap)");
  if (e.schedule == PipelineSchedule::gpipe)
    refuse(
        "needs schedule 1f1b, interleaved or dualpipev: it pairs each steady-state forward with a "
        "backward");
  if (e.pp > 1 && e.chunks() <= 1)
    refuse("with pp > 1 needs schedule: interleaved with interleave > 1 (Megatron-Core's "
           "combined 1F1B extends the interleaved schedule)");
  if (e.recompute == Recompute::full) refuse("is not built with recompute: full");
  if (e.offload_layers > 0) refuse("is not built with offload_layers");
}

// The expert groups: EP blocks of weight replicas (DP x CP: under context parallelism each
// rank routes its own piece of the sequence), or, with expert tensor parallelism other than
// tp (folded), the experts' own grid over a stage's TP x CP x DP ranks (etp x ep x edp), which
// Megatron-Core builds only with sequence parallelism under TP, each rank routing its own
// sequence shard.
void check_expert_groups(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  if (!e.experts_fold() && e.weight_replicas() % e.ep != 0)
    broken_rule(s, "execution.ep", std::to_string(e.ep),
                e.cp > 1 ? "must divide dp x cp (" + std::to_string(e.weight_replicas()) + ")"
                         : "must divide dp (" + std::to_string(e.dp) + ")");
  if (s.model.experts % e.ep != 0)
    broken_rule(s, "execution.ep", std::to_string(e.ep),
                "must divide the model's " + std::to_string(s.model.experts) + " experts");
  if (e.etp == 0) return;
  std::string value = std::to_string(e.etp);
  if (s.model.experts <= 1) broken_rule(s, "execution.etp", value, experts_only(s.model.experts));
  if (!e.experts_fold()) return;
  if (e.tp > 1 && !e.sequence_parallel)
    broken_rule(s, "execution.etp", value,
                "other than tp needs sequence_parallel: true (Megatron-Core runs an MoE layer "
                "under TP on sequence-parallel shards)");
  int ranks = e.tp * e.weight_replicas();
  bool by_ep = e.ep > 1; // the key that set the grid apart, ep where there is one
  if (ranks % (e.ep * e.etp) != 0)
    broken_rule(s, by_ep ? "execution.ep" : "execution.etp", by_ep ? std::to_string(e.ep) : value,
                "ep x etp (" + std::to_string(e.ep) + " x " + value + ") " +
                    (e.cp > 1 ? "must divide tp x cp x dp (" : "must divide tp x dp (") +
                    std::to_string(ranks) + "), the ranks the experts fold over");
}

} // namespace

std::string experts_only(int experts) {
  return "applies to a mixture of experts only (model.experts > 1; this model has " +
         std::to_string(experts) + ")";
}

void check_moe_execution(const Scenario& s) {
  check_expert_groups(s);
  check_capacity(s);
  check_dispatcher(s);
  check_ep_collective(s);
  check_imbalance(s);
  check_ep_overlap(s);
}

std::string to_string(MoeDispatcher d) {
  return d == MoeDispatcher::allgather ? "allgather" : "alltoall";
}

} // namespace trainsim
