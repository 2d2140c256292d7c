#include "sim/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>

namespace trainsim {

std::shared_ptr<spdlog::logger> logger(const std::string& name) {
  if (auto existing = spdlog::get(name)) return existing;
  // Registered loggers take the global level, which main() set from --log-level.
  auto created =
      std::make_shared<spdlog::logger>(name, std::make_shared<spdlog::sinks::stderr_sink_mt>());
  spdlog::initialize_logger(created);
  return created;
}

} // namespace trainsim
