#include "models/section_keys.hpp"
#include "models/moe_rules.hpp"

#include <utility>

namespace trainsim {
namespace {

using M = ModelSpec;
using Read = std::function<void(const Params&, M&)>;

constexpr auto always = always_written<M>;
bool transformer(const M& m) { return m.kind == ModelKind::transformer; }

/// A whole number the section must give.
template <class T>
ModelKey required(const char* key, T M::*member) {
  return {key, [=](const Params& p, M& m) { m.*member = p.get_positive<T>(key); },
          [=](const M& m) { return std::optional(integer_value(m.*member)); }, always};
}

/// A part of a transformer's layer (docs/compute-model.md): the MLP-block model has none and
/// refuses the key; a file states it for transformers only, where the key's own `written` says.
ModelKey layer_part(ModelKey k) {
  Read read = std::move(k.read);
  k.read = [read, key = k.key](const Params& p, M& m) {
    if (transformer(m)) return read(p, m);
    if (p.has(key))
      p.fail(key, "applies to kind: transformer only (the MLP-block model has no such part)");
  };
  k.written = [written = std::move(k.written)](const M& m) { return transformer(m) && written(m); };
  return k;
}

// Each head's width: unset, d_model / heads, which provenance gives.
ModelKey head_dim() {
  return layer_part({"head_dim",
                     [](const Params& p, M& m) {
                       if (p.has("head_dim")) m.head_dim = p.get_positive<int>("head_dim");
                     },
                     [](const M& m) {
                       long width = m.head_dim > 0 ? m.head_dim : m.d_model / m.heads;
                       return std::optional(integer_value(width));
                     },
                     [](const M& m) { return m.head_dim > 0; }});
}

/// A key of a mixture-of-experts model: refused on a dense one, where it would do nothing.
ModelKey moe_part(ModelKey k) {
  Read read = std::move(k.read);
  k.read = [read, key = k.key](const Params& p, M& m) {
    if (p.has(key) && m.experts <= 1) p.fail(key, experts_only(m.experts));
    read(p, m);
  };
  return k;
}

// An expert's inner size apart from the dense MLP's: unset, d_ff, which provenance gives.
ModelKey moe_d_ff() {
  return moe_part({"moe_d_ff",
                   [](const Params& p, M& m) {
                     if (p.has("moe_d_ff")) m.moe_d_ff = p.get_positive<long>("moe_d_ff");
                   },
                   [](const M& m) { return std::optional(integer_value(m.expert_d_ff())); },
                   [](const M& m) { return m.moe_d_ff > 0; }});
}

ModelKey shared_experts() {
  return moe_part({"shared_experts",
                   [](const Params& p, M& m) {
                     m.shared_experts = p.get_or("shared_experts", m.shared_experts);
                     if (m.shared_experts < 0) p.fail("shared_experts", "must be 0 or more");
                   },
                   [](const M& m) { return std::optional(integer_value(m.shared_experts)); },
                   [](const M& m) { return m.shared_experts > 0; }});
}

// The experts' kernels as they run: grouped GEMMs or one per expert; the router's type.
ModelKey moe_grouped_gemm() {
  ModelKey k = moe_part(switch_key<M>("moe_grouped_gemm", &M::moe_grouped_gemm));
  k.written = [](const M& m) { return m.experts > 1; };
  return k;
}

ModelKey moe_router_dtype() {
  return moe_part(
      {"moe_router_dtype",
       [](const Params& p, M& m) {
         m.router_fp32 =
             choose(p, "moe_router_dtype", m.router_fp32, {{"bf16", false}, {"fp32", true}});
       },
       [](const M& m) { return std::optional(text_value(m.router_fp32 ? "fp32" : "bf16")); },
       [](const M& m) { return m.experts > 1; }});
}

// Group-limited routing: both keys or neither (groups without a count chosen route as none).
ModelKey router_groups() {
  return moe_part({"moe_router_num_groups",
                   [](const Params& p, M& m) {
                     if (!p.has("moe_router_num_groups")) return;
                     m.router_groups = p.get_positive<int>("moe_router_num_groups");
                     if (m.experts % m.router_groups != 0)
                       p.fail("moe_router_num_groups",
                              "must divide the model's " + std::to_string(m.experts) + " experts");
                     if (!p.has("moe_router_group_topk"))
                       p.fail("moe_router_num_groups", "needs moe_router_group_topk");
                   },
                   [](const M& m) { return std::optional(integer_value(m.router_groups)); },
                   [](const M& m) { return m.router_groups > 0; }});
}

ModelKey router_group_topk() {
  return moe_part(
      {"moe_router_group_topk",
       [](const Params& p, M& m) {
         if (!p.has("moe_router_group_topk")) return;
         int k = m.router_group_topk = p.get_positive<int>("moe_router_group_topk");
         auto fail = [&](const std::string& why) { p.fail("moe_router_group_topk", why); };
         if (m.router_groups == 0) fail("needs moe_router_num_groups");
         if (k > m.router_groups)
           fail("must be at most moe_router_num_groups (" + std::to_string(m.router_groups) + ")");
         if (k > m.top_k)
           fail("must be at most top_k (" + std::to_string(m.top_k) +
                "): each group is scored by its best top_k / group_topk experts");
         if (m.top_k > k * (m.experts / m.router_groups))
           fail("the chosen groups hold " + std::to_string(k * (m.experts / m.router_groups)) +
                " experts, fewer than top_k (" + std::to_string(m.top_k) + ")");
       },
       [](const M& m) { return std::optional(integer_value(m.router_group_topk)); },
       [](const M& m) { return m.router_group_topk > 0; }});
}

ModelKey dense_layers() {
  return moe_part({"dense_layers",
                   [](const Params& p, M& m) {
                     m.dense_layers = p.get_or("dense_layers", m.dense_layers);
                     if (m.dense_layers < 0) p.fail("dense_layers", "must be 0 or more");
                     if (m.dense_layers >= m.layers)
                       p.fail("dense_layers", "must be fewer than the model's " +
                                                  std::to_string(m.layers) +
                                                  " layers (the rest are the experts')");
                   },
                   [](const M& m) { return std::optional(integer_value(m.dense_layers)); },
                   [](const M& m) { return m.dense_layers > 0; }});
}

// Multi-token prediction needs the LM head and the embedding it shares (model.vocab).
ModelKey mtp_layers() {
  return layer_part({"mtp_layers",
                     [](const Params& p, M& m) {
                       m.mtp_layers = p.get_or("mtp_layers", m.mtp_layers);
                       if (m.mtp_layers < 0) p.fail("mtp_layers", "must be 0 or more");
                       if (m.mtp_layers > 0 && m.vocab <= 0)
                         p.fail("mtp_layers", "needs model.vocab: each module runs the "
                                              "embedding and the LM head");
                     },
                     [](const M& m) { return std::optional(integer_value(m.mtp_layers)); },
                     [](const M& m) { return m.mtp_layers > 0; }});
}

bool latent(const M& m) { return m.mla.on(); }
/// Whether the section asks for latent attention (its sizes are read after attention_kind).
bool asks_latent(const Params& p) {
  return p.has("attention_kind") && p.get<std::string>("attention_kind") == "mla";
}

// Grouped-query attention: as many key/value heads as heads unless it says. Latent attention
// has none of its own (attention_kind refuses the key), so a file does not state it there.
ModelKey kv_heads() {
  return layer_part(
      {"kv_heads",
       [](const Params& p, M& m) { m.kv_heads = p.get_positive_or("kv_heads", m.heads); },
       [](const M& m) { return std::optional(integer_value(m.kv_heads_or_heads())); },
       [](const M& m) { return !latent(m); }});
}

// attention_kind: mha (multi-head, or grouped-query with kv_heads) or mla (latent attention,
// models/scenario.hpp), whose heads' widths are its own: head_dim, kv_heads and qk_norm,
// which shape the other kind's heads, are refused beside it.
ModelKey attention_kind() {
  return layer_part(
      {"attention_kind",
       [](const Params& p, M& m) {
         bool mla = choose(p, "attention_kind", false, {{"mha", false}, {"mla", true}});
         if (!mla) return;
         for (const char* key : {"head_dim", "kv_heads"})
           if (p.has(key))
             p.fail(key, "does not apply with attention_kind: mla (its heads are "
                         "qk_nope_head_dim + qk_rope_head_dim wide, its values "
                         "v_head_dim)");
         if (m.qk_norm)
           p.fail("qk_norm", "does not apply with attention_kind: mla (it norms its "
                             "latents instead)");
       },
       [](const M& m) { return std::optional(text_value(latent(m) ? "mla" : "mha")); }, latent});
}

// One of latent attention's sizes: required with attention_kind: mla (q_lora_rank may be 0,
// no query latent), refused without it.
ModelKey latent_size(const char* key, int LatentAttention::*member, bool may_be_zero) {
  return layer_part({key,
                     [=](const Params& p, M& m) {
                       if (!asks_latent(p)) {
                         if (p.has(key)) p.fail(key, "needs attention_kind: mla");
                         return;
                       }
                       m.mla.*member = may_be_zero ? p.get_or(key, 0) : p.get_positive<int>(key);
                       if (m.mla.*member < 0) p.fail(key, "must be 0 or more");
                     },
                     [=](const M& m) -> std::optional<KeyValue> {
                       if (!latent(m)) return std::nullopt;
                       return integer_value(m.mla.*member);
                     },
                     latent});
}

// A sliding window shorter than the sequence (a window as long is full attention).
ModelKey window() {
  return layer_part({"window",
                     [](const Params& p, M& m) {
                       if (!p.has("window")) return;
                       m.window = p.get_positive<int>("window");
                       if (m.window >= m.seq_len)
                         p.fail("window", "must be shorter than seq_len (" +
                                              std::to_string(m.seq_len) +
                                              "): a window as long is full attention");
                     },
                     [](const M& m) { return std::optional(integer_value(m.window)); },
                     [](const M& m) { return m.window > 0; }});
}

ModelKey full_attention_every() {
  return layer_part(
      {"full_attention_every",
       [](const Params& p, M& m) {
         if (!p.has("full_attention_every")) return;
         if (m.window <= 0)
           p.fail("full_attention_every", "needs a window (model.window): without one every "
                                          "layer attends to the whole sequence");
         m.full_attention_every = p.get_positive<int>("full_attention_every");
       },
       [](const M& m) { return std::optional(integer_value(m.full_attention_every)); },
       [](const M& m) { return m.full_attention_every > 0; }});
}

// The word weights, activations and gradients are kept in. FP8 training runs only the linear
// layers' GEMMs in FP8 and keeps the rest in BF16 (Transformer Engine's recipes; DeepSeek-V3's
// report, section 3.3.1: "the inputs and outputs of the attention and MLP blocks" stay in
// higher precision), so its word is BF16's; the GEMMs run at the preset's FP8 rate.
Bytes word_size(const Params& p) {
  std::string precision = p.get_or<std::string>("precision", "bf16");
  const std::vector<std::pair<std::string, double>> sizes{
      {"fp32", 4}, {"bf16", 2}, {"fp16", 2}, {"fp8", 2}};
  for (const auto& [name, bytes] : sizes)
    if (name == precision) return Bytes(bytes);
  const std::vector<std::string> names{"fp32", "bf16", "fp16", "fp8"};
  p.fail("precision", one_of(names) + did_you_mean(precision, names));
}

// FP8's scaling recipe: tensorwise unless the file says (Megatron-Bridge's FP8-CS, Transformer
// Engine's current scaling); a recipe without FP8 would do nothing.
ModelKey fp8_recipe() {
  ModelKey k{"fp8_recipe",
             [](const Params& p, M& m) {
               if (m.precision != "fp8") {
                 if (p.has("fp8_recipe")) p.fail("fp8_recipe", "needs precision: fp8");
                 return;
               }
               m.fp8_recipe = choose(p, "fp8_recipe", Fp8Recipe::tensorwise,
                                     {{"tensorwise", Fp8Recipe::tensorwise},
                                      {"delayed", Fp8Recipe::delayed},
                                      {"blockwise", Fp8Recipe::blockwise},
                                      {"mxfp8", Fp8Recipe::mxfp8}});
             },
             [](const M& m) { return std::optional(text_value(to_string(m.fp8_recipe))); },
             [](const M& m) { return m.fp8_recipe != Fp8Recipe::none; }};
  return k;
}

// Transformers are priced per operator unless `compute: roofline` asks for the paper's kernel;
// the MLP-block model is always the roofline (ModelSpec::per_operator()), so asking for
// operators there is a key that does not apply, like the transformer's parts.
ModelKey compute() {
  return {"compute",
          [](const Params& p, M& m) {
            m.compute = choose(
                p, "compute", transformer(m) ? ComputeModel::operators : ComputeModel::roofline,
                {{"operators", ComputeModel::operators}, {"roofline", ComputeModel::roofline}});
            if (!transformer(m) && m.compute == ComputeModel::operators)
              p.fail("compute",
                     "needs kind: transformer (the MLP-block model is priced as a roofline)");
          },
          [](const M& m) {
            return std::optional(text_value(m.per_operator() ? "operators" : "roofline"));
          },
          transformer};
}

// Each feature of the per-operator profile defaults to on per operator; the roofline has none
// to turn on and keeps the profile made in code, inert there (ModelSpec::applied_profile).
// A file states one where a run turned it off; provenance gives it as it applies.
ModelKey profile_key(const ProfileKey& k) {
  return {k.key,
          [k](const Params& p, M& m) {
            if (!transformer(m)) {
              if (p.has(k.key))
                p.fail(k.key, "applies to kind: transformer only (the MLP-block model is priced "
                              "as a roofline, without the per-operator profile)");
              return;
            }
            bool on = p.get_or(k.key, m.per_operator());
            if (m.per_operator())
              m.profile.*k.member = on;
            else if (on)
              p.fail(k.key,
                     "needs compute: operators (the roofline prices the layers' kernels only)");
          },
          [k](const M& m) { return std::optional(flag_value(m.applied_profile().*k.member)); },
          [k](const M& m) { return m.per_operator() && !(m.profile.*k.member); }};
}

std::vector<ModelKey> declare() {
  std::vector<ModelKey> keys{
      {"name", [](const Params& p, M& m) { m.name = p.get_or<std::string>("name", m.name); },
       [](const M& m) { return std::optional(text_value(m.name)); }, always},
      {"kind",
       [](const Params& p, M& m) {
         m.kind = choose(p, "kind", ModelKind::transformer,
                         {{"transformer", ModelKind::transformer}, {"mlp", ModelKind::mlp}});
       },
       [](const M& m) { return std::optional(text_value(to_string(m.kind))); }, always},
      required("layers", &M::layers),
      required("d_model", &M::d_model),
      required("d_ff", &M::d_ff),
      // A transformer states its heads; the MLP-block model has one unless it says.
      {"heads",
       [](const Params& p, M& m) {
         m.heads =
             transformer(m) ? p.get_positive<int>("heads") : p.get_positive_or<int>("heads", 1);
       },
       [](const M& m) { return std::optional(integer_value(m.heads)); }, always},
      required("seq_len", &M::seq_len),
      count_key<M>("experts", &M::experts),
      count_key<M>("top_k", &M::top_k),
      moe_d_ff(),
      shared_experts(),
      moe_grouped_gemm(),
      moe_router_dtype(),
      router_groups(),
      router_group_topk(),
      dense_layers(),
      switch_key<M>("gated_mlp", &M::gated_mlp),
      {"precision",
       [](const Params& p, M& m) {
         m.bytes_per_word = word_size(p);
         m.precision = p.get_or<std::string>("precision", m.precision);
       },
       [](const M& m) { return std::optional(text_value(m.precision)); }, always},
      fp8_recipe(),
      kv_heads(),
      head_dim(),
      layer_part({"vocab", [](const Params& p, M& m) { m.vocab = p.get_or("vocab", m.vocab); },
                  [](const M& m) { return std::optional(integer_value(m.vocab)); }, always}),
      mtp_layers(),
      layer_part(switch_key<M>("biases", &M::biases)),
      layer_part(switch_key<M>("dropout", &M::dropout)),
      layer_part(switch_key<M>("rotary", &M::rotary)),
      layer_part(switch_key<M>("qk_norm", &M::qk_norm)),
      attention_kind(),
      latent_size("q_lora_rank", &LatentAttention::q_lora_rank, true),
      latent_size("kv_lora_rank", &LatentAttention::kv_lora_rank, false),
      latent_size("qk_rope_head_dim", &LatentAttention::qk_rope_head_dim, false),
      latent_size("qk_nope_head_dim", &LatentAttention::qk_nope_head_dim, false),
      latent_size("v_head_dim", &LatentAttention::v_head_dim, false),
      window(),
      full_attention_every(),
      layer_part(switch_key<M>("attention_sinks", &M::attention_sinks)),
      layer_part(
          {"attention",
           [](const Params& p, M& m) {
             m.attention =
                 choose(p, "attention", m.attention,
                        {{"flash", AttentionKernel::flash},
                         {"cudnn", AttentionKernel::cudnn},
                         {"unfused", AttentionKernel::unfused}});
           },
           [](const M& m) { return std::optional(text_value(to_string(m.attention))); }, always}),
      compute()};
  for (const ProfileKey& k : kProfileKeys) keys.push_back(profile_key(k));
  return keys;
}

} // namespace

const std::vector<ModelKey>& model_keys() {
  static const std::vector<ModelKey> keys = declare();
  return keys;
}

} // namespace trainsim
