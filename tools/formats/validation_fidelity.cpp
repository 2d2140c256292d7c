// Writes section 6 of the validation report (tools/formats/validation_fidelity.hpp).
#include "tools/formats/validation_fidelity.hpp"

#include <algorithm>
#include <cmath>

#include "tools/formats/text.hpp"

namespace trainsim {

double worst_fidelity_error(const ValidationReport& r, bool shared) {
  double worst = 0;
  for (const FidelityCheck& c : r.fidelity)
    worst = std::max(worst, std::abs(shared ? c.error() : c.error_unshared()));
  return worst;
}

std::string fidelity_section(const ValidationReport& r) {
  std::string out =
      "## 6. Fast mode against fine mode\n\n"
      "Fast mode (the default) merges the kernels and collectives of a pass into a few "
      "activities, except in the passes whose collectives leave the node, which keep their "
      "order, and, where the fabric is rail-symmetric, runs one rail for all; fine mode runs "
      "every kernel and every step of every collective. Each scenario below runs in both modes "
      "twice: with links "
      "shared as always, and with every link a fat pipe (each flow at the link's whole "
      "bandwidth however many cross it), where no flow slows another and what is left is the "
      "transform's own difference. The scenarios: the random ones of section 2 whose fine-mode "
      "step is estimated at " +
      formatted("%.0f", kFidelityFineBudget_s) +
      " CPU s or less from its collectives' rounds (tools/study/run_cost.hpp), " +
      std::to_string(r.fidelity.size() - (r.options.quick ? 0 : 1)) + " of the " +
      std::to_string(r.options.quick ? 20 : r.options.random_scenarios) + "" +
      (r.options.quick ? "" : ", and issue 41's Mixtral-like job (32 DGX H100 nodes, tp 4, ep 8, dp 64)") +
      ". Criterion: fast within " + formatted("%.0f%%", 100 * kFidelityTolerance) +
      " of fine, and within " + formatted("%.0f%%", 100 * kFidelityUnsharedTolerance) +
      " with no link shared.\n\n";
  out += "Worst difference: **" + signed_percent(worst_fidelity_error(r, true)) + "** with links shared, **" +
         signed_percent(worst_fidelity_error(r, false)) + "** with none shared, over " +
         std::to_string(r.fidelity.size()) + " scenarios.\n\n";
  out += markdown_header({"scenario", "GPUs", "features", "fast (ms)", "fine (ms)", "fast / fine - 1",
                          "no link shared: fast (ms)", "fine (ms)", "fast / fine - 1"});
  for (const FidelityCheck& c : r.fidelity)
    out += markdown_row({c.name, std::to_string(c.gpus), c.features, milliseconds(c.fast_s), milliseconds(c.fine_s),
                         signed_percent(c.error()), milliseconds(c.fast_unshared_s), milliseconds(c.fine_unshared_s),
                         signed_percent(c.error_unshared())});
  return out + "\n";
}

nlohmann::ordered_json fidelity_json(const ValidationReport& r) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const FidelityCheck& c : r.fidelity)
    out.push_back({{"scenario", c.name},
                   {"gpus", c.gpus},
                   {"features", c.features},
                   {"fast_s", c.fast_s},
                   {"fine_s", c.fine_s},
                   {"fast_unshared_s", c.fast_unshared_s},
                   {"fine_unshared_s", c.fine_unshared_s},
                   {"fine_cpu_s", c.fine_cpu_s},
                   {"fine_estimate_s", c.fine_estimate_s}});
  return out;
}

} // namespace trainsim
