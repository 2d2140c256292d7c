#include "models/section_keys.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include "models/collectives.hpp"
#include "models/recompute_modules.hpp"

namespace trainsim {
namespace {

constexpr auto always = always_written<ExecutionSpec>;

/// A count that is unset (0) unless given: a positive integer where given.
ExecutionKey unset_count(const char* key, int ExecutionSpec::*m) {
  return {key,
          [=](const Params& p, ExecutionSpec& e) {
            if (p.has(key)) e.*m = p.get_positive<int>(key);
          },
          [=](const ExecutionSpec& e) { return std::optional(integer_value(e.*m)); },
          [=](const ExecutionSpec& e) { return e.*m > 0; }};
}

/// A collective algorithm from the catalogue; what it must support is a scenario rule.
std::string collective_name(const Params& p, const std::string& key, const std::string& fallback) {
  std::string name = p.get_or<std::string>(key, fallback);
  if (find_collective(name) == nullptr)
    p.fail(key, "is not a collective algorithm" + did_you_mean(name, collective_names()));
  return name;
}

ExecutionKey collective(const char* key, std::string ExecutionSpec::*m) {
  return {key, [=](const Params& p, ExecutionSpec& e) { e.*m = collective_name(p, key, e.*m); },
          [=](const ExecutionSpec& e) { return std::optional(text_value(e.*m)); }, always};
}

/// `collective`: shorthand for tp_collective and dp_collective, which it gives their default.
ExecutionKey shared_collective() {
  return {"collective",
          [](const Params& p, ExecutionSpec& e) {
            e.tp_collective = e.dp_collective = collective_name(p, "collective", e.tp_collective);
          },
          [](const ExecutionSpec&) { return std::optional<KeyValue>(); },
          [](const ExecutionSpec&) { return false; }};
}

// DeepSeek's DualPipe keeps two copies of the weights, stage s and stage pp - 1 - s, and runs
// half the microbatches each way (DeepSeek-V3's report, section 3.2.1). trainsim builds its
// V-shaped variant, which has the same pairing and bubble with one copy; a file that names
// the two-copy schedule is told so rather than given the other.
bool names_dualpipe(const Params& p) {
  std::string name = p.get_or<std::string>("schedule", "");
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name == "dualpipe";
}

ExecutionKey schedule() {
  return {"schedule",
          [](const Params& p, ExecutionSpec& e) {
            if (names_dualpipe(p))
              p.fail("schedule", "DualPipe with two copies of the weights is not built: "
                                 "dualpipev is its V-shaped variant, the same pairing and "
                                 "bubble with one copy (docs/moe.md)");
            e.schedule = choose(p, "schedule", e.schedule,
                                {{"1f1b", PipelineSchedule::one_f_one_b},
                                 {"gpipe", PipelineSchedule::gpipe},
                                 {"interleaved", PipelineSchedule::interleaved},
                                 {"dualpipev", PipelineSchedule::dualpipev}});
          },
          [](const ExecutionSpec& e) { return std::optional(text_value(to_string(e.schedule))); },
          always};
}

// false/none, true/full or selective.
Recompute read_recompute(const Params& p) {
  std::string text = p.get_or<std::string>("recompute", "none");
  if (text == "true" || text == "yes" || text == "on" || text == "full") return Recompute::full;
  if (text == "selective") return Recompute::selective;
  if (text != "false" && text != "no" && text != "off" && text != "none")
    p.fail("recompute", one_of({"none", "full", "selective", "true", "false"}) +
                            did_you_mean(text, {"none", "full", "selective"}));
  return Recompute::none;
}

// Adam's two moments in FP32 (12 bytes of optimizer state a parameter, with the FP32 master
// weights) or in BF16 (8): Megatron-Core's precision-aware optimizer with --exp-avg-dtype and
// --exp-avg-sq-dtype bf16, as DeepSeek-V3 trained ("the first and second moments of AdamW
// in BF16", its report's section 3.3.3) and Megatron-Bridge's DeepSeek-V3 recipe sets.
constexpr double kFp32Moments = 12.0, kBf16Moments = 8.0;
ExecutionKey optimizer_moments() {
  return {"optimizer_moments",
          [](const Params& p, ExecutionSpec& e) {
            double bytes = choose(p, "optimizer_moments", e.optimizer_bytes_per_param.value(),
                                  {{"fp32", kFp32Moments}, {"bf16", kBf16Moments}});
            e.optimizer_bytes_per_param = Bytes(bytes);
          },
          [](const ExecutionSpec& e) {
            return std::optional(
                text_value(e.optimizer_bytes_per_param.value() == kBf16Moments ? "bf16" : "fp32"));
          },
          [](const ExecutionSpec& e) { return e.optimizer_bytes_per_param.value() == kBf16Moments; }};
}

// Expert tensor parallelism (Megatron-Core's --expert-tensor-parallel-size): unset, each
// routed expert is split over tp as the attention is; 1 folds the experts over TP x DP
// (models/moe_rules.cpp says which values are built).
ExecutionKey expert_tensor_parallel() {
  return {"etp",
          [](const Params& p, ExecutionSpec& e) {
            if (p.has("etp")) e.etp = p.get_positive<int>("etp");
          },
          [](const ExecutionSpec& e) { return std::optional(integer_value(e.expert_tp())); },
          [](const ExecutionSpec& e) { return e.etp > 0; }};
}

ExecutionKey recompute() {
  return {"recompute", [](const Params& p, ExecutionSpec& e) { e.recompute = read_recompute(p); },
          [](const ExecutionSpec& e) { return std::optional(text_value(to_string(e.recompute))); },
          always};
}

// Which layers of each chunk full recomputation covers: Megatron's block method (the first
// recompute_layers) or PyTorch's every k-th (recompute_every). `excludes`: the other key, which
// this one refuses beside it.
ExecutionKey recomputed_layers(const char* key, int ExecutionSpec::*member,
                               const char* excludes = nullptr) {
  return {key,
          [=](const Params& p, ExecutionSpec& e) {
            if (!p.has(key)) return;
            if (e.recompute != Recompute::full)
              p.fail(key, "needs recompute: full (it says which layers of each chunk recompute)");
            if (excludes != nullptr && p.has(excludes))
              p.fail(key,
                     std::string("and ") + excludes + " both say which layers recompute; give one");
            e.*member = p.get_positive<int>(key);
          },
          [=](const ExecutionSpec& e) { return std::optional(integer_value(e.*member)); },
          [=](const ExecutionSpec& e) { return e.*member > 0; }};
}

// What `trainsim validate`'s random scenarios draw of the options (RandomDraw): each with its
// chance and values, where it has work to do. The layout (dp, tp, tp_2d, pp, ep, the batch and
// the schedule) is drawn as a whole by the generator, which then draws these in table order.
void add_draws(std::vector<ExecutionKey>& keys) {
  using E = ExecutionSpec;
  auto tensor_parallel = [](const E& e) { return e.tp_ranks() > 1; };
  auto first_axis = [](const E& e) { return e.tp > 1; };
  const std::map<std::string, RandomDraw<E>> draws{
      {"sequence_parallel", {4, {"true"}, first_axis}},
      {"dp_overlap", {4, {"true"}}},
      {"delayed_update", {4, {"true"}}},
      {"tp_overlap", {4, {"true"}, tensor_parallel}},
      {"launch_overlap", {4, {"true"}}},
      {"zero", {3, {"1", "2", "3"}}},
      {"recompute", {4, {"full"}}},
      {"tp_collective", {4, {"direct"}, tensor_parallel}},
      {"dp_collective", {4, {"pat"}}},
  };
  for (ExecutionKey& key : keys)
    if (auto it = draws.find(key.key); it != draws.end()) key.draw = it->second;
}

std::vector<ExecutionKey> declare() {
  using E = ExecutionSpec;
  std::vector<ExecutionKey> keys{
      count_key<E>("dp", &E::dp),
      count_key<E>("tp", &E::tp),
      count_key<E>("tp_2d", &E::tp_2d, [](const E& e) { return e.tp_2d > 1; }),
      count_key<E>("pp", &E::pp),
      count_key<E>("ep", &E::ep),
      count_key<E>("cp", &E::cp),
      {"global_batch",
       [](const Params& p, E& e) { e.global_batch = p.get_positive<long>("global_batch"); },
       [](const E& e) { return std::optional(integer_value(e.global_batch)); }, always},
      count_key<E>("micro_batch", &E::micro_batch),
      schedule(),
      count_key<E>("interleave", &E::interleave,
                   [](const E& e) { return e.schedule == PipelineSchedule::interleaved; }),
      // Provenance gives the group the schedule uses, unset or not.
      {"microbatch_group",
       [](const Params& p, E& e) {
         if (p.has("microbatch_group"))
           e.microbatch_group = p.get_positive<int>("microbatch_group");
       },
       [](const E& e) { return std::optional(integer_value(e.group())); },
       [](const E& e) { return e.microbatch_group > 0; }},
      // Absent: the even split (0 is not a layer count one can give).
      unset_count("first_stage_layers", &E::first_stage_layers),
      unset_count("last_stage_layers", &E::last_stage_layers),
      // Its fit to the model and the plan is a rule (models/stage_layout.cpp).
      {"pipeline_layout",
       [](const Params& p, E& e) {
         if (!p.has("pipeline_layout")) return;
         ParsedLayout parsed = parse_pipeline_layout(p.get_or<std::string>("pipeline_layout", ""));
         if (!parsed.problem.empty()) p.fail("pipeline_layout", parsed.problem);
         e.pipeline_layout = parsed.layout;
       },
       [](const E& e) { return std::optional(text_value(e.pipeline_layout.text)); },
       [](const E& e) { return !e.pipeline_layout.empty(); }}};
  for (auto [key, member] :
       {std::pair{"embedding_as_layer", &E::embedding_as_layer},
        std::pair{"loss_as_layer", &E::loss_as_layer},
        std::pair{"sequence_parallel", &E::sequence_parallel},
        std::pair{"pp_scatter_gather", &E::pp_scatter_gather},
        std::pair{"fp32_gradients", &E::fp32_gradients},
        std::pair{"grad_accumulation_fusion", &E::grad_accumulation_fusion},
        std::pair{"dp_overlap", &E::dp_overlap}, std::pair{"delayed_update", &E::delayed_update},
        std::pair{"param_gather_overlap", &E::param_gather_overlap},
        std::pair{"zero3_prefetch", &E::zero3_prefetch},
        std::pair{"fp8_param_gather", &E::fp8_param_gather}, std::pair{"tp_overlap", &E::tp_overlap},
        std::pair{"ep_overlap", &E::ep_overlap},
        std::pair{"delay_wgrad_compute", &E::delay_wgrad_compute},
        std::pair{"launch_overlap", &E::launch_overlap}})
    keys.push_back(switch_key<E>(key, member));
  keys.insert(keys.end(),
              {count_key<E>("tp_overlap_splits", &E::tp_overlap_splits,
                            [](const E& e) { return e.tp_overlap; }),
               // The stage of ZeRO: its range is a scenario rule (models/scenario_rules.cpp).
               {"zero", [](const Params& p, E& e) { e.zero = p.get_or("zero", e.zero); },
                [](const E& e) { return std::optional(integer_value(e.zero)); }, always},
               recompute(),
               recomputed_layers("recompute_layers", &E::recompute_layers),
               recomputed_layers("recompute_every", &E::recompute_every, "recompute_layers"),
               recompute_modules_key(),
               // Its bounds against the model and the plan: models/scenario_rules.cpp.
               {"offload_layers",
                [](const Params& p, E& e) {
                  if (p.has("offload_layers")) e.offload_layers = p.get_positive<int>("offload_layers");
                },
                [](const E& e) { return std::optional(integer_value(e.offload_layers)); },
                [](const E& e) { return e.offload_layers > 0; }},
               // Unset: Megatron-LM's default, which provenance gives as dp_bucket_bytes.
               {"dp_bucket",
                [](const Params& p, E& e) {
                  if (p.has("dp_bucket")) e.dp_bucket = p.get_positive<Bytes>("dp_bucket");
                },
                [](const E& e) {
                  return e.dp_bucket ? std::optional(text_value(Params::text_of(*e.dp_bucket)))
                                     : std::nullopt;
                },
                [](const E& e) { return e.dp_bucket.has_value(); }},
               // Unset: dropless, which provenance leaves out.
               {"moe_capacity_factor",
                [](const Params& p, E& e) {
                  if (p.has("moe_capacity_factor"))
                    e.moe_capacity_factor = p.get_positive<double>("moe_capacity_factor");
                },
                [](const E& e) { return std::optional(number_value(e.moe_capacity_factor)); },
                [](const E& e) { return e.moe_capacity_factor > 0; }},
               {"moe_pad_to_capacity",
                [](const Params& p, E& e) {
                  e.moe_pad_to_capacity = p.get_or("moe_pad_to_capacity", e.moe_pad_to_capacity);
                },
                [](const E& e) { return std::optional(flag_value(e.moe_pad_to_capacity)); },
                [](const E& e) { return e.moe_pad_to_capacity; }},
               // Unset: balanced; its range is a rule (models/moe_rules.cpp).
               {"moe_imbalance",
                [](const Params& p, E& e) {
                  e.moe_imbalance = p.get_or("moe_imbalance", e.moe_imbalance);
                },
                [](const E& e) { return std::optional(number_value(e.moe_imbalance)); },
                [](const E& e) { return e.moe_imbalance != 0; }},
               {"moe_imbalance_seed",
                [](const Params& p, E& e) {
                  e.moe_imbalance_seed = p.get_or("moe_imbalance_seed", e.moe_imbalance_seed);
                },
                [](const E& e) { return std::optional(integer_value(e.moe_imbalance_seed)); },
                [](const E& e) { return e.moe_imbalance_seed != 0; }},
               {"moe_dispatcher",
                [](const Params& p, E& e) {
                  e.moe_dispatcher = choose(p, "moe_dispatcher", e.moe_dispatcher,
                                            {{"alltoall", MoeDispatcher::alltoall},
                                             {"allgather", MoeDispatcher::allgather}});
                },
                [](const E& e) { return std::optional(text_value(to_string(e.moe_dispatcher))); },
                [](const E& e) { return e.moe_dispatcher != MoeDispatcher::alltoall; }},
               expert_tensor_parallel(), optimizer_moments(), shared_collective(),
               collective("tp_collective", &E::tp_collective),
               collective("dp_collective", &E::dp_collective),
               collective("ep_collective", &E::ep_collective)});
  add_draws(keys);
  return keys;
}

} // namespace

const std::vector<ExecutionKey>& execution_keys() {
  static const std::vector<ExecutionKey> keys = declare();
  return keys;
}

} // namespace trainsim
