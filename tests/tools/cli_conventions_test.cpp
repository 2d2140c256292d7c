// The command line's conventions: --version, `trainsim help CMD`, unknown commands, help text
// without parser internals, one-line errors for bad option values, --log-level anywhere,
// -o/--out wherever there is an output, and every exit code documented (docs/errors.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "models/error.hpp"
#include "tools/commands/validate_command.hpp"
#include "tools/io/version.hpp"

#include "cli_fixtures.hpp"
#include "tests/support/scratch_dir.hpp"

namespace {

using trainsim::testing::CliOutput;
using trainsim::testing::Streams;

CliOutput trainsim(const std::string& arguments, Streams streams = Streams::stdout_and_stderr) {
  return trainsim::testing::run_trainsim(arguments, streams);
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The version as CMake's project() states it, read from the top-level CMakeLists.txt.
std::string cmake_project_version() {
  std::smatch m;
  std::string cmake = read_text(TRAINSIM_SOURCE_DIR "/CMakeLists.txt");
  return std::regex_search(cmake, m, std::regex(R"(project\(trainsim VERSION ([0-9.]+))"))
             ? m[1].str()
             : "";
}

const std::string commands = "run, bounds, frontier, topo, validate, report, compare, sweep, goodput, help";

TEST(CliConventions, VersionIsTheProjectVersion) {
  ASSERT_FALSE(cmake_project_version().empty());
  EXPECT_EQ(trainsim::version(), cmake_project_version());
  CliOutput out = trainsim("--version");
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(out.text, "trainsim " + cmake_project_version() + "\n");
}

TEST(CliConventions, HelpCommandPrintsWhatHelpFlagPrints) {
  for (const char* command :
       {"", "run", "frontier", "topo", "topo export", "sweep", "sweep merge", "validate"}) {
    CliOutput help = trainsim(std::string("help ") + command);
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_EQ(help.text, trainsim(std::string(command) + " --help").text) << command;
    EXPECT_NE(help.text.find("Usage: trainsim " + std::string(command)), std::string::npos)
        << help.text;
  }
}

TEST(CliConventions, UnknownCommandSaysSoListsTheCommandsAndSuggests) {
  for (const char* arguments : {"nosuch", "help nosuch", "--log-level info nosuch --out x"}) {
    CliOutput out = trainsim(arguments);
    EXPECT_EQ(out.exit_code, 1) << arguments; // usage (docs/errors.md)
    EXPECT_EQ(out.text, "trainsim: unknown command 'nosuch'; the commands are: " + commands + "\n")
        << arguments;
  }
  CliOutput typo = trainsim("rnu scenarios/default.yaml");
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_EQ(typo.text, "trainsim: unknown command 'rnu' (did you mean 'run'?); the commands are: " +
                           commands + "\n");
  CliOutput topo = trainsim("topo exprt");
  EXPECT_EQ(topo.exit_code, 1);
  EXPECT_EQ(
      topo.text,
      "trainsim: unknown command 'exprt' (did you mean 'export'?); the commands of trainsim topo "
      "are: describe, export\n");
  CliOutput none = trainsim("");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.text, "trainsim: no command given; the commands are: " + commands + "\n");
}

TEST(CliConventions, HelpShowsNoParserInternals) {
  for (const char* command : {"", "run", "bounds", "frontier", "topo describe", "topo export",
                              "validate", "report", "compare", "sweep", "sweep merge", "help"}) {
    std::string help = trainsim(std::string("help ") + command).text;
    // CLI11's enum transformer printed "ENUM:value in {fast->0,fine->1} OR {0,1}", negated
    // flags "{false}", membership checks "TEXT:{text,markdown,csv}".
    for (const char* internal : {"ENUM", "->", "{", "}"})
      EXPECT_EQ(help.find(internal), std::string::npos)
          << "'" << internal << "' in help " << command << ":\n"
          << help;
  }
  EXPECT_NE(trainsim("help run").text.find("--fidelity TEXT             fast (default"),
            std::string::npos);
}

TEST(CliConventions, BadOptionValueIsOneLineWithExitCodeTwo) {
  struct Case {
    const char* arguments;
    const char* line;
  };
  for (const Case& c : {
           Case{"run --fidelity medium", "--fidelity = 'medium': must be fast or fine"},
           Case{"run --fidelity fien",
                "--fidelity = 'fien': must be fast or fine (did you mean 'fine'?)"},
           Case{"compare --format xml a.yaml", "--format = 'xml': must be text, markdown or csv"},
           Case{"sweep a.yaml -j two", "--jobs = 'two': must be a whole number"},
           Case{"frontier --experts 1.5", "--experts = '1.5': must be a whole number"},
           Case{"frontier --batch-exponent third", "--batch-exponent = 'third': must be a number"},
           Case{"frontier --collective mesh", "--collective = 'mesh': must be tree or ring"},
           Case{"bounds --log-level loud",
                "--log-level = 'loud': must be trace, debug, info, warn, error or off"},
       }) {
    CliOutput out = trainsim(c.arguments);
    EXPECT_EQ(out.exit_code, 2) << c.arguments; // a bad value is bad input (docs/errors.md)
    EXPECT_EQ(out.text, std::string("trainsim: command line: ") + c.line + "\n") << c.arguments;
  }
}

TEST(CliConventions, UsageErrorIsOneLineWithExitCodeOne) {
  for (const char* arguments : {"run --fidelty fast", "report", "bounds a.yaml b.yaml"}) {
    CliOutput out = trainsim(arguments);
    EXPECT_EQ(out.exit_code, 1) << arguments;
    EXPECT_EQ(lines(out.text), 1u) << out.text;
    EXPECT_EQ(out.text.rfind("trainsim: ", 0), 0u) << out.text;
  }
  EXPECT_NE(trainsim("run --fidelty fast").text.find("--fidelty (see: trainsim help run)"),
            std::string::npos);
  // A flag renamed says its new name, in one line, before any scenario is read.
  CliOutput renamed = trainsim("run --fold-replicas");
  EXPECT_EQ(renamed.exit_code, 1);
  EXPECT_EQ(renamed.text, "trainsim: --fold-replicas is now --bundle-replicas (see: trainsim "
                          "help run)\n");
}

TEST(CliConventions, LogLevelWorksBeforeAndAfterTheCommand) {
  const std::string scenario = TRAINSIM_SOURCE_DIR "/scenarios/default.yaml";
  const std::string info_line = "simulating 64 GPUs"; // trainsim.run logs it at info
  EXPECT_EQ(trainsim("run " + scenario).text.find(info_line), std::string::npos); // default: warn
  for (const std::string& arguments :
       {"--log-level info run " + scenario, "run " + scenario + " --log-level info"}) {
    CliOutput out = trainsim(arguments);
    EXPECT_EQ(out.exit_code, 0) << arguments;
    EXPECT_NE(out.text.find(info_line), std::string::npos) << arguments << ":\n" << out.text;
  }
  EXPECT_EQ(trainsim("topo describe --log-level off " + scenario).exit_code,
            0); // nested commands too
}

TEST(CliConventions, DashOIsOutWhereverACommandWritesFiles) {
  for (const char* command :
       {"run", "frontier", "validate", "report", "sweep", "sweep merge", "topo export"})
    EXPECT_NE(trainsim(std::string("help ") + command).text.find("-o,--out"), std::string::npos)
        << command;
  trainsim::testing::ScratchDir dir("cli_conventions_o");
  auto file = dir / "missing" / "t.dot"; // -o creates the directories it needs
  ASSERT_EQ(trainsim("topo export -o " + file.string()).exit_code, 0);
  EXPECT_EQ(read_text(file).rfind("graph", 0), 0u) << read_text(file);
}

// Every code a command can return has a row in docs/errors.md's table, 70 included.
TEST(CliConventions, EveryExitCodeIsDocumented) {
  using trainsim::ExitCode;
  std::string errors = read_text(TRAINSIM_SOURCE_DIR "/docs/errors.md");
  for (int code :
       {0, 1 /* usage */, static_cast<int>(ExitCode::input), static_cast<int>(ExitCode::simulation),
        static_cast<int>(ExitCode::resources), static_cast<int>(ExitCode::io),
        trainsim::validation_failed_exit_code, static_cast<int>(ExitCode::internal)})
    EXPECT_NE(errors.find("\n| " + std::to_string(code) + " |"), std::string::npos) << code;
  EXPECT_NE(trainsim("--help").text.find("70 internal error"), std::string::npos);
}

} // namespace
