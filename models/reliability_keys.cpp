// The `reliability:` section's keys, each declared once (models/section_keys.hpp): the loader
// reads them, the writer states the ones given and result.json lists them.
#include "models/section_keys.hpp"

namespace trainsim {
namespace {

using R = ReliabilitySpec;

/// An MTBF per unit of `c`: a positive time where given (an MTBF of 0 would fail constantly).
ReliabilityKey mtbf(Component c) {
  std::string key = to_string(c) + "_mtbf";
  auto i = static_cast<size_t>(c);
  return {key,
          [=](const Params& p, R& r) {
            if (p.has(key)) r.mtbf[i] = p.get_positive<Seconds>(key);
          },
          [=](const R& r) -> std::optional<KeyValue> {
            std::optional<Seconds> m = mtbf_of(r, c);
            if (!m) return std::nullopt;
            return number_value(*m);
          },
          [=](const R& r) { return r.mtbf[i].has_value(); }};
}

/// A positive quantity that is unset (0) unless given.
template <class Q>
ReliabilityKey unset_quantity(const char* key, Q R::*m) {
  return {key,
          [=](const Params& p, R& r) {
            if (p.has(key)) r.*m = p.get_positive<Q>(key);
          },
          [=](const R& r) -> std::optional<KeyValue> {
            if (!(r.*m > Q{})) return std::nullopt;
            return number_value(r.*m);
          },
          [=](const R& r) { return r.*m > Q{}; }};
}

ReliabilityKey interval() {
  return {"interval",
          [](const Params& p, R& r) {
            if (p.has("interval")) r.interval = p.get_positive<Seconds>("interval");
          },
          [](const R& r) -> std::optional<KeyValue> {
            if (!r.interval) return std::nullopt;
            return number_value(*r.interval);
          },
          [](const R& r) { return r.interval.has_value(); }};
}

ReliabilityKey duration() {
  return {"duration",
          [](const Params& p, R& r) { r.duration = p.get_positive_or("duration", r.duration); },
          [](const R& r) { return std::optional(number_value(r.duration)); },
          [](const R& r) { return r.duration != R{}.duration; }};
}

ReliabilityKey seed() {
  return {"seed",
          [](const Params& p, R& r) {
            int seed = p.get_or("seed", static_cast<int>(r.seed));
            if (seed < 0) p.fail("seed", "must be 0 or more");
            r.seed = static_cast<std::uint64_t>(seed);
          },
          [](const R& r) { return std::optional(integer_value(static_cast<long>(r.seed))); },
          [](const R& r) { return r.seed != R{}.seed; }};
}

// The switches the storage servers hang off: the fabric's top tier, or a named one.
ReliabilityKey storage_switches() {
  static const std::vector<std::pair<std::string, int>> kTiers = [] {
    std::vector<std::pair<std::string, int>> tiers;
    for (size_t i = 0; i < kStorageTiers.size(); ++i)
      tiers.emplace_back(kStorageTiers[i], static_cast<int>(i));
    return tiers;
  }();
  return {"storage_switches",
          [](const Params& p, R& r) {
            r.storage_level = choose(p, "storage_switches", r.storage_level, kTiers);
          },
          [](const R& r) {
            return std::optional(text_value(kTiers[static_cast<size_t>(r.storage_level)].first));
          },
          [](const R& r) { return r.storage_level != R{}.storage_level; }};
}

std::vector<ReliabilityKey> make_keys() {
  std::vector<ReliabilityKey> keys;
  for (int c = 0; c < kComponents; ++c) keys.push_back(mtbf(static_cast<Component>(c)));
  keys.push_back(count_key<R>("gpus_per_host", &R::gpus_per_host,
                              [](const R& r) { return r.gpus_per_host != R{}.gpus_per_host; }));
  keys.push_back(unset_quantity("storage_bandwidth", &R::storage_bandwidth));
  keys.push_back(count_key<R>("storage_nodes", &R::storage_nodes,
                              [](const R& r) { return r.storage_nodes != R{}.storage_nodes; }));
  keys.push_back(storage_switches());
  keys.push_back(unset_quantity("storage_network", &R::storage_network));
  keys.push_back(unset_quantity("storage_capacity", &R::storage_capacity));
  keys.push_back(unset_quantity("restart", &R::restart));
  keys.push_back(interval());
  ReliabilityKey async = switch_key<R>("async", &R::async);
  async.written = [](const R& r) { return r.async; };
  keys.push_back(async);
  keys.push_back(duration());
  keys.push_back(seed());
  return keys;
}

} // namespace

const std::vector<ReliabilityKey>& reliability_keys() {
  static const std::vector<ReliabilityKey> keys = make_keys();
  return keys;
}

} // namespace trainsim
