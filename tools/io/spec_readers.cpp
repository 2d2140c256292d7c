#include "tools/io/spec_readers.hpp"

namespace trainsim {
namespace {

Bytes word_size(const Params& p) {
  std::string precision = p.get_or<std::string>("precision", "bf16");
  const std::vector<std::pair<std::string, double>> sizes{
      {"fp32", 4}, {"bf16", 2}, {"fp16", 2}, {"fp8", 1}};
  for (const auto& [name, bytes] : sizes)
    if (name == precision) return Bytes(bytes);
  const std::vector<std::string> names{"fp32", "bf16", "fp16", "fp8"};
  p.fail("precision", one_of(names) + did_you_mean(precision, names));
}

// Keys that describe a transformer's layer; the MLP-block model has none of these parts.
void reject_transformer_keys(const Params& p) {
  for (const ProfileKey& k : kProfileKeys)
    if (p.has(k.key))
      p.fail(k.key, "applies to kind: transformer only (the MLP-block model is priced as a "
                    "roofline, without the per-operator profile)");
  for (const char* key : {"kv_heads", "vocab", "biases", "dropout", "rotary", "attention"})
    if (p.has(key))
      p.fail(key, "applies to kind: transformer only (the MLP-block model has no such part)");
}

// Grouped-query attention, the vocabulary and the layer's parts (docs/compute-model.md).
void read_transformer_parts(const Params& p, ModelSpec& m) {
  m.kv_heads = p.get_positive_or("kv_heads", m.heads);
  m.vocab = p.get_or("vocab", m.vocab);
  m.biases = p.get_or("biases", m.biases);
  m.dropout = p.get_or("dropout", m.dropout);
  m.rotary = p.get_or("rotary", m.rotary);
  m.attention = choose(p, "attention", m.attention,
                       {{"flash", AttentionKernel::flash}, {"unfused", AttentionKernel::unfused}});
}

// Transformers are priced per operator unless `compute: roofline` asks for the paper's kernel;
// the MLP-block model is always the roofline (ModelSpec::per_operator()), so asking for
// operators there is a key that does not apply, like the transformer's parts.
void read_compute(const Params& p, ModelSpec& m) {
  bool transformer = m.kind == ModelKind::transformer;
  m.compute =
      choose(p, "compute", transformer ? ComputeModel::operators : ComputeModel::roofline,
             {{"operators", ComputeModel::operators}, {"roofline", ComputeModel::roofline}});
  if (!transformer && m.compute == ComputeModel::operators)
    p.fail("compute", "needs kind: transformer (the MLP-block model is priced as a roofline)");
  // Each feature of the profile defaults to on per operator; the roofline has none to turn on
  // and keeps the profile made in code, inert there (ModelSpec::applied_profile).
  for (const ProfileKey& k : kProfileKeys) {
    bool on = p.get_or(k.key, m.per_operator());
    if (m.per_operator())
      m.profile.*k.member = on;
    else if (on)
      p.fail(k.key, "needs compute: operators (the roofline prices the layers' kernels only)");
  }
}

// A new peak scales what the GPU achieves of it (gemm_peak, the attention table) unless
// those are given too: a what-if GPU with twice the compute keeps the preset's efficiency.
void scale_rates(GpuSpec& g, double k) {
  g.gemm_peak = g.gemm_peak * k;
  for (auto* row : {&g.flash_attention.d64, &g.flash_attention.d128})
    for (FlopPerSecond& r : *row) r = r * k;
}

// matmul_efficiency and gemm_peak both say how fast matmuls run: the per-operator model takes
// gemm_peak, the roofline peak x matmul_efficiency. A preset brings a measured gemm_peak, which
// would leave a matmul_efficiency the user set acting on the roofline only, so setting it
// replaces the preset's gemm_peak by peak x matmul_efficiency; setting both is refused.
void read_matmul_rate(const Params& p, GpuSpec& g) {
  if (!p.has("matmul_efficiency")) return;
  if (p.has("gemm_peak"))
    p.fail("matmul_efficiency",
           "and gemm_peak both set the matmul rate (gemm_peak is peak x matmul_efficiency); "
           "give one");
  if (g.gemm_peak.value() > 0) g.gemm_peak = g.peak * g.matmul_efficiency;
}

} // namespace

ModelSpec read_model(const Params& p) {
  ModelSpec m;
  m.name = p.get_or<std::string>("name", m.name);
  m.kind = choose(p, "kind", ModelKind::transformer,
                  {{"transformer", ModelKind::transformer}, {"mlp", ModelKind::mlp}});
  m.layers = p.get_positive<int>("layers");
  m.d_model = p.get_positive<long>("d_model");
  m.d_ff = p.get_positive<long>("d_ff");
  m.heads = m.kind == ModelKind::transformer ? p.get_positive<int>("heads")
                                             : p.get_positive_or<int>("heads", 1);
  m.seq_len = p.get_positive<long>("seq_len");
  m.experts = p.get_positive_or("experts", m.experts);
  m.top_k = p.get_positive_or("top_k", m.top_k);
  m.gated_mlp = p.get_or("gated_mlp", m.gated_mlp);
  m.bytes_per_word = word_size(p);
  m.precision = p.get_or<std::string>("precision", m.precision);
  if (m.kind == ModelKind::transformer)
    read_transformer_parts(p, m);
  else
    reject_transformer_keys(p);
  read_compute(p, m);
  p.reject_unknown();
  return m;
}

GpuSpec read_gpu_figures(const Params& p, GpuSpec g) {
  FlopPerSecond preset_peak = g.peak;
  g.peak = p.get_positive_or("peak", g.peak);
  if (p.has("peak")) scale_rates(g, g.peak / preset_peak);
  g.matmul_efficiency = p.get_positive_or("matmul_efficiency", g.matmul_efficiency);
  g.hbm_bandwidth = p.get_positive_or("hbm_bandwidth", g.hbm_bandwidth);
  g.hbm_capacity = p.get_positive_or("hbm_capacity", g.hbm_capacity);
  g.kernel_latency = p.get_or("kernel_latency", g.kernel_latency);
  if (g.matmul_efficiency > 1.0)
    p.fail("matmul_efficiency", "is a fraction of peak and cannot exceed 1");
  if (g.kernel_latency.value() < 0) p.fail("kernel_latency", "must not be negative");
  // The per-operator model's figures (docs/compute-model.md).
  g.sms = p.get_positive_or("sms", g.sms);
  g.gemm_peak = p.get_positive_or("gemm_peak", g.gemm_peak);
  read_matmul_rate(p, g);
  if (p.has("flash_attention")) { // one rate for every head dimension and sequence length
    FlopPerSecond rate = p.get_positive<FlopPerSecond>("flash_attention");
    g.flash_attention.d64.fill(rate);
    g.flash_attention.d128.fill(rate);
  }
  g.hbm_efficiency = p.get_positive_or("hbm_efficiency", g.hbm_efficiency);
  if (g.hbm_efficiency > 1.0)
    p.fail("hbm_efficiency", "is a fraction of hbm_bandwidth and cannot exceed 1");
  g.speed_spread = p.get_or("speed_spread", g.speed_spread);
  if (g.speed_spread < 0.0 || g.speed_spread >= 0.1)
    p.fail("speed_spread", "is a relative standard deviation: at least 0 and below 0.1");
  return g;
}

} // namespace trainsim
