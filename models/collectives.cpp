#include "models/collectives.hpp"

#include <algorithm>

#include "models/collective_cost.hpp"
#include "models/scenario.hpp"

namespace trainsim {

std::string to_string(CollectiveOp op) {
  switch (op) {
  case CollectiveOp::all_reduce:
    return "all-reduce";
  case CollectiveOp::reduce_scatter:
    return "reduce-scatter";
  case CollectiveOp::all_gather:
    return "all-gather";
  case CollectiveOp::all_to_all:
    return "all-to-all";
  }
  return "?";
}

ExpertRouting expert_routing(const ModelSpec& m, const std::vector<double>* loads) {
  ExpertRouting r{m.experts, m.top_k, loads};
  r.groups = m.router_groups, r.group_topk = m.router_group_topk;
  return r;
}

bool CollectiveInfo::supports(CollectiveOp op) const {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

const std::vector<CollectiveInfo>& collective_catalogue() {
  using enum CollectiveOp;
  static const std::vector<CollectiveInfo> all{
      {"ring",
       "ring: reduce-scatter and all-gather in p-1 steps of n/p bytes to the next rank each",
       {all_reduce, reduce_scatter, all_gather},
       collective_price::ring},
      {"tree",
       "double binary tree (all-reduce only): halves reduced up and broadcast down two trees, "
       "pipelined",
       {all_reduce},
       collective_price::tree},
      {"hierarchical",
       "ring reduce-scatter in each node, ring all-reduce across nodes, all-gather in each node; a "
       "plain ring within "
       "one node or with one member per node",
       {all_reduce, reduce_scatter, all_gather},
       collective_price::hierarchical},
      {"auto",
       "NCCL's choice per call: the tree for an all-reduce where its time on the group's "
       "slowest pair is below the ring's (small messages, many ranks), the ring otherwise",
       {all_reduce, reduce_scatter, all_gather},
       collective_price::nccl_auto},
      {"direct",
       "every member sends n/p to every other at once and receives n/p from each, one latency "
       "per phase (an all-reduce is a reduce-scatter and an all-gather), as Transformer Engine's "
       "userbuffers overlap runs TP collectives over NVLink",
       {all_reduce, reduce_scatter, all_gather},
       collective_price::direct,
       true},
      {"pat",
       "NCCL's PAT for groups with one member per node: ceil(log2 p) steps of doubling block "
       "counts, each to the member half as far as the step before's; a ring otherwise",
       {all_reduce, reduce_scatter, all_gather},
       collective_price::pat},
      {.name = "pairwise",
       .description = "all-to-all only: p-1 rounds, round k sends n/p to member me+k and receives from me-k",
       .ops = {all_to_all},
       .exchange = collective_price::pairwise},
      {.name = "deepep",
       .description = "all-to-all only, DeepEP's two hops: each member sends the tokens bound for another "
       "node's experts once (not once per expert) to that node's member on its own rail, all "
       "nodes at once, then every member forwards what it received and its own node's copies "
       "to their experts' members over NVLink",
       .ops = {all_to_all},
       .exchange = collective_price::deepep,
       .node_hops = true},
  };
  return all;
}

const CollectiveInfo* find_collective(std::string_view name) {
  for (const CollectiveInfo& info : collective_catalogue())
    if (info.name == name) return &info;
  return nullptr;
}

std::vector<std::string> collective_names() {
  std::vector<std::string> names;
  for (const CollectiveInfo& info : collective_catalogue()) names.push_back(info.name);
  return names;
}

std::string default_collective(CollectiveOp op) {
  return op == CollectiveOp::all_to_all ? "pairwise" : "ring";
}

} // namespace trainsim
