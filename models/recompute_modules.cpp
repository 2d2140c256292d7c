// Selective recomputation's modules (models/scenario.hpp, RecomputeModule): their names as
// Megatron-Core spells them and the `recompute_modules` key that lists them.
#include <algorithm>

#include "models/recompute_modules.hpp"

#include "models/error.hpp"

namespace trainsim {
namespace {

constexpr RecomputeModules kDefaultModules = module_bit(RecomputeModule::core_attn);

std::vector<std::string> module_names() {
  std::vector<std::string> names;
  for (RecomputeModule m : modules_of(0xff)) names.push_back(to_string(m));
  return names;
}

RecomputeModules read_modules(const Params& p) {
  const char* key = "recompute_modules";
  std::vector<std::string> words = p.get_words(key);
  if (words.empty()) return kDefaultModules;
  std::vector<std::string> names = module_names();
  RecomputeModules set = 0;
  for (const std::string& word : words) {
    // Megatron-Core's `moe` runs the whole expert layer again, dispatch and combine included:
    // a second all-to-all in the backward that the step program does not build.
    if (word == "moe")
      p.fail(key, "'moe' is not modelled (it runs the expert layer's all-to-alls again); "
                  "name its parts: moe_act, shared_experts");
    auto it = std::find(names.begin(), names.end(), word);
    if (it == names.end())
      p.fail(key, "'" + word + "' is not a module: " + one_of(names) + did_you_mean(word, names));
    set |= module_bit(static_cast<RecomputeModule>(it - names.begin()));
  }
  return set;
}

} // namespace

std::string to_string(RecomputeModule m) {
  switch (m) {
  case RecomputeModule::core_attn:
    return "core_attn";
  case RecomputeModule::layernorm:
    return "layernorm";
  case RecomputeModule::mla_up_proj:
    return "mla_up_proj";
  case RecomputeModule::moe_act:
    return "moe_act";
  case RecomputeModule::mlp:
    return "mlp";
  case RecomputeModule::shared_experts:
    return "shared_experts";
  }
  return "?";
}

std::vector<RecomputeModule> modules_of(RecomputeModules set) {
  std::vector<RecomputeModule> out;
  for (unsigned i = 0; i <= static_cast<unsigned>(RecomputeModule::shared_experts); ++i)
    if ((set & (1u << i)) != 0) out.push_back(static_cast<RecomputeModule>(i));
  return out;
}

// Written where it differs from the default; given, it needs `recompute: selective`, as
// Megatron-Core reads recompute_modules only under selective granularity (where it would
// otherwise say nothing).
ExecutionKey recompute_modules_key() {
  return {"recompute_modules",
          [](const Params& p, ExecutionSpec& e) {
            if (p.has("recompute_modules") && e.recompute != Recompute::selective)
              p.fail("recompute_modules", "needs recompute: selective (it says what that runs "
                                          "again)");
            e.recompute_modules = read_modules(p);
          },
          [](const ExecutionSpec& e) {
            std::vector<std::string> names;
            for (RecomputeModule m : modules_of(e.recompute_modules)) names.push_back(to_string(m));
            return std::optional(text_value(listed(names)));
          },
          [](const ExecutionSpec& e) { return e.recompute_modules != kDefaultModules; }};
}

void check_recompute_modules(const Scenario& s) {
  const ExecutionSpec& e = s.execution;
  const ModelSpec& m = s.model;
  auto refuse = [&](bool missing, RecomputeModule module, const std::string& why) {
    if (missing && e.recomputes_module(module))
      throw InputError(s.file, "execution.recompute_modules", to_string(module), why);
  };
  refuse(!m.mla.on(), RecomputeModule::mla_up_proj,
         "needs latent attention (model.attention_kind: mla)");
  refuse(m.experts <= 1, RecomputeModule::moe_act, "needs routed experts (model.experts above 1)");
  refuse(m.shared_experts <= 0, RecomputeModule::shared_experts,
         "needs shared experts (model.shared_experts)");
  refuse(m.experts > 1 && m.dense_layers == 0, RecomputeModule::mlp,
         "runs a dense layer's MLP again, and every layer of this model has experts (moe_act and "
         "shared_experts are theirs)");
}

} // namespace trainsim
