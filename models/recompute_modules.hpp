// Selective recomputation's modules (models/scenario.hpp, RecomputeModule): the
// `recompute_modules` key and its rules. Internal to models/.
#pragma once

#include "models/section_keys.hpp"

namespace trainsim {

/// `execution.recompute_modules`: a list of Megatron-Core's module names, under
/// `recompute: selective`.
ExecutionKey recompute_modules_key();

/// Throws InputError for a module the model does not have (mla_up_proj without latent
/// attention, moe_act without experts, shared_experts without shared ones, mlp without a
/// dense layer): Megatron-Core refuses the first two, and each would change nothing here.
void check_recompute_modules(const Scenario& scenario);

} // namespace trainsim
