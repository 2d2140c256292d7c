// Helpers shared by the validation sections: scenarios made in code from a few parameters, and
// one simulation measured against its bound.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "models/closed_form.hpp"
#include "models/topology_spec.hpp"
#include "sim/simulation.hpp"
#include "tools/formats/report.hpp"
#include "tools/study/evaluate.hpp"
#include "tools/io/scenario_loader.hpp"

namespace trainsim::validation {

/// A scenario made in code, named `label` in messages, on the H100 SXM preset (as a file
/// without system.gpu says). build_scenario() checks and builds it as it does a file.
Scenario make_scenario(std::string label, ModelSpec model, topo::TopologySpec topology,
                       ExecutionSpec execution);

/// The paper's MLP block: d_model 4096 on sequences of 2048 tokens.
ModelSpec mlp_block(int layers = 8, long d_ff = 16384);

/// A fat-tree whose nodes all hang off one leaf: every GPU has its own NIC and the leaf is a
/// crossbar, so flows between distinct GPU pairs never share a link.
topo::TopologySpec one_leaf_fat_tree(int nodes, int gpus_per_node);

/// dp x tp x pp with `global_batch` sequences, everything else at its default.
ExecutionSpec grid(int dp, int tp, int pp, long global_batch);

using Measured = Evaluation;

/// A scenario's share of a section's time, for its ETA and for starting the dearest runs
/// first: its simulation's estimated ops (fast mode) and a fixed part for the loading and the
/// bound (about 0.1 s, 50k ops' worth).
double run_weight(const Scenario& s);

/// Simulates one step; `link_stats` records the bytes per link that blame() names (it does not
/// change the step, and costs about a third more time on a large run).
/// `bundle_replicas` runs DP replica 0 for all (sim::SimOptions).
Measured measure(const LoadedScenario& loaded, sim::Fidelity fidelity = sim::Fidelity::fast,
                 bool link_stats = true, bool bundle_replicas = false);

/// What `parse` loads, or nullopt when the loader's rules reject it (an InputError: the random
/// generator proposes, the loader decides). Anything else thrown is a bug, in the generator's
/// text or the loader, and propagates: counted as a rejection it would vanish from the report.
std::optional<LoadedScenario> accepted(const std::function<LoadedScenario()>& parse);

/// Where the time above the bound went: the largest non-compute category of the breakdown
/// (the phase) and the most utilised link direction with its tier.
std::string blame(const Measured& m);
/// "compute 70%, dp_comm 18%": the simulated step's categories over 5% of it.
std::string shares(const StepSummary& summary);

/// "dp8 tp4 pp2 ep2 m4": the parallel split and the microbatches per pipeline.
std::string parallelism(const ExecutionSpec& e);
/// The split, the schedule and the options that shape the step, and the fabric's generator.
std::string features(const Scenario& scenario);

} // namespace trainsim::validation
