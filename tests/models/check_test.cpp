// TRAINSIM_CHECK (models/check.hpp): an internal invariant checked in every build. NDEBUG is
// defined before anything is included, as a Release build defines it, so these tests show
// that the check does not depend on it (assert would vanish).
#ifndef NDEBUG
#define NDEBUG
#endif
#include "models/check.hpp"

#include <gtest/gtest.h>

#include <string>

namespace trainsim {
namespace {

TEST(Check, HoldsSilently) {
  int explanations = 0;
  auto why = [&] {
    ++explanations;
    return std::string("never needed");
  };
  EXPECT_NO_THROW(TRAINSIM_CHECK(1 + 1 == 2));
  EXPECT_NO_THROW(TRAINSIM_CHECK(2 > 1, why()));
  EXPECT_EQ(explanations, 0); // the explanation is built only when the check fails
}

TEST(Check, FailureIsAnInternalErrorNamingFileLineAndCondition) {
  int line = 0;
  try {
    line = __LINE__ + 1;
    TRAINSIM_CHECK(1 + 1 == 3);
    FAIL() << "no throw";
  } catch (const InternalError& e) {
    EXPECT_EQ(e.exit_code(), ExitCode::internal);
    EXPECT_EQ(static_cast<int>(e.exit_code()), 70); // EX_SOFTWARE, docs/errors.md
    // __FILE__ is written relative to the source tree (-fmacro-prefix-map in CMakeLists.txt).
    EXPECT_EQ(std::string(e.what()),
              "internal error: tests/models/check_test.cpp:" + std::to_string(line) +
                  ": 1 + 1 == 3 failed; please report it with the command line");
  }
}

TEST(Check, FailureSaysWhyWhenGivenAReason) {
  std::string name = "rign";
  try {
    TRAINSIM_CHECK(name == "ring", "no collective '" + name + "'");
    FAIL() << "no throw";
  } catch (const Error& e) { // an InternalError is an Error: main prints it as one line
    std::string line = e.what();
    EXPECT_NE(line.find(": name == \"ring\" failed (no collective 'rign'); please report"),
              std::string::npos)
        << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  }
}

} // namespace
} // namespace trainsim
