// The warnings one of the project's loggers (sim/log.hpp) writes while a CapturedWarnings
// lives, one message per line, so that a test can hold a warning's exact words.
#pragma once

#include <memory>
#include <sstream>
#include <string>

#include <spdlog/sinks/ostream_sink.h>

#include "sim/log.hpp"

namespace trainsim::testing {

class CapturedWarnings {
public:
  explicit CapturedWarnings(std::string name = "trainsim.input")
      : name_(std::move(name)), sink_(std::make_shared<spdlog::sinks::ostream_sink_st>(out_)) {
    sink_->set_pattern("%v");
    logger(name_)->sinks().push_back(sink_);
  }
  ~CapturedWarnings() { logger(name_)->sinks().pop_back(); }
  CapturedWarnings(const CapturedWarnings&) = delete;
  CapturedWarnings& operator=(const CapturedWarnings&) = delete;
  [[nodiscard]] std::string text() const { return out_.str(); }

private:
  std::string name_;
  std::ostringstream out_;
  std::shared_ptr<spdlog::sinks::ostream_sink_st> sink_;
};

} // namespace trainsim::testing
