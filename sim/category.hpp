// Where a GPU's simulated time goes. Every simulated second of every rank is charged to exactly
// one category (sim/gpu_actor.cpp), so they add up to the step time; the names and the
// sentences that define them here are the ones every report and docs/outputs.md use.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace trainsim::sim {

enum class Category : std::uint8_t {
  compute,
  tp_comm,
  pp_comm,
  dp_comm,
  ep_comm,
  cp_comm,
  offload,
  bubble,
  idle
};

inline constexpr std::array<Category, 9> kCategories{
    Category::compute, Category::tp_comm, Category::pp_comm, Category::dp_comm, Category::ep_comm,
    Category::cp_comm, Category::offload, Category::bubble,  Category::idle};

constexpr std::size_t index(Category c) { return static_cast<std::size_t>(c); }

/// "compute", "tp_comm", ...: the key in result.json and the row of the text report.
const char* name(Category c);
/// One sentence: what the simulator charges to `c`.
const char* meaning(Category c);

} // namespace trainsim::sim
