// The library entry points the fuzz targets drive, shared with the corpus replay test
// (tests/tools/trust_test.cpp) so that every seed and reproducer also runs in the ordinary
// gcc build. Each function feeds arbitrary bytes to one parser and lets through only the
// failures the error policy allows; anything else escaping (another exception type, a crash
// or a non-finite number accepted from the input) is a bug.
#pragma once

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "models/error.hpp"
#include "models/units.hpp"
#include "tools/io/scenario_loader.hpp"
#include "topologies/import.hpp"

namespace trainsim::fuzz {

/// Thrown for a result the error policy forbids: a parser "succeeded" with a wrong number.
struct SilentWrongValue : std::logic_error {
  using std::logic_error::logic_error;
};

inline void expect_finite(double value, const std::string& what) {
  if (!std::isfinite(value)) throw SilentWrongValue(what + " is not finite");
}

/// Every link of an accepted topology has a finite bandwidth and latency: a NaN or infinite one
/// would turn every route through it, and the step time, into NaN or infinity without a word.
inline void expect_finite(const topo::Topology& t) {
  for (int id = 0; id < t.link_count(); ++id) {
    expect_finite(t.link(id).bandwidth.value(), "link " + std::to_string(id) + " bandwidth");
    expect_finite(t.link(id).latency.value(), "link " + std::to_string(id) + " latency");
  }
}

inline void expect_finite(const GpuSpec& g) {
  expect_finite(g.peak.value(), "system.gpu.peak");
  expect_finite(g.matmul_efficiency, "system.gpu.matmul_efficiency");
  expect_finite(g.hbm_bandwidth.value(), "system.gpu.hbm_bandwidth");
  expect_finite(g.hbm_capacity.value(), "system.gpu.hbm_capacity");
  expect_finite(g.kernel_latency.value(), "system.gpu.kernel_latency");
}

/// Runs `parse`: a trainsim::Error is a clean refusal of the input, except InternalError (a
/// broken invariant, TRAINSIM_CHECK), which is a finding and escapes.
template <class Parse>
void refused_cleanly(Parse parse) {
  try {
    parse();
  } catch (const InternalError&) {
    throw;
  } catch (const Error&) {}
}

/// A scenario as text: must load with finite numbers, or fail with a trainsim::Error other than
/// InternalError.
inline void scenario(std::string_view text) {
  refused_cleanly([&] {
    LoadedScenario loaded = parse_scenario(std::string(text), "fuzz.yaml");
    expect_finite(loaded.scenario.system.gpu);
    expect_finite(loaded.topology);
  });
}

/// A topology file's content in one format: must import with finite links, or fail with a
/// trainsim::Error other than InternalError.
inline void topology(std::string_view text, topo::GraphFormat format) {
  std::istringstream in{std::string(text)};
  topo::ImportParams options;
  options.route_cache_mib = 1; // the router is not exercised; keep the fuzzer's memory small
  refused_cleanly(
      [&] { expect_finite(topo::read_topology(in, format, "fuzz.topology", options)); });
}

template <class Parse>
void one_unit(std::string_view text, Parse parse) {
  try {
    double v = parse(text).value();
    // A parse that succeeds must give a usable number: infinity from "1e308PB" would be
    // carried silently into every later computation.
    if (!std::isfinite(v))
      throw SilentWrongValue("'" + std::string(text) + "' parsed to a non-finite value");
  } catch (const std::invalid_argument&) {}
}

/// A quantity with a unit, through every unit parser.
inline void units(std::string_view text) {
  one_unit(text, parse_seconds);
  one_unit(text, parse_bytes);
  one_unit(text, parse_bandwidth);
  one_unit(text, parse_flop_rate);
  one_unit(text, parse_flop);
}

} // namespace trainsim::fuzz
