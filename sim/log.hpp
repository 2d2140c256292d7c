// One spdlog logger per module, named hierarchically ("trainsim.sim", "trainsim.report"),
// all on stderr; `trainsim --log-level` sets the level of every one of them.
#pragma once

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace trainsim {

/// The logger called `name`, created on first use with the level set on the command line.
std::shared_ptr<spdlog::logger> logger(const std::string& name);

} // namespace trainsim
