#include "tools/commands/report_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <memory>

#include <CLI/CLI.hpp>

#include "tools/commands/cli_support.hpp"
#include "models/error.hpp"
#include "sim/log.hpp"
#include "tools/formats/html_report.hpp"
#include "tools/io/output_file.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json read_json(const fs::path& p) {
  try {
    return nlohmann::json::parse(read_text(p));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(p.string(), std::string("not valid JSON: ") + e.what());
  }
}

// links.csv: link,from,to,tier,bandwidth_Bps,bytes,busy_s,utilization
std::vector<LinkUse> read_links(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  std::vector<LinkUse> out;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string field; std::getline(ss, field, ',');) f.push_back(field);
    if (f.size() != 8) throw InputError(p.string(), "expected 8 columns in '" + line + "'");
    out.push_back({f[3], std::stod(f[7])});
  }
  return out;
}

ReportInputs read_inputs(const fs::path& dir) {
  if (!fs::exists(dir / "result.json"))
    throw InputError(dir.string(),
                     "no result.json here (write one with: trainsim run SCENARIO --out DIR)");
  ReportInputs in;
  in.result = read_json(dir / "result.json");
  if (!in.result.contains("stages"))
    throw InputError((dir / "result.json").string(),
                     "has no per-stage breakdown: rerun trainsim run --out");
  if (fs::exists(dir / "trace.json")) in.trace = read_json(dir / "trace.json");
  if (fs::exists(dir / "links.csv")) in.links = read_links(dir / "links.csv");
  if (fs::exists(dir / "frontier.svg")) in.frontier_svg = read_text(dir / "frontier.svg");
  if (fs::exists(dir / "goodput.svg")) in.goodput_svg = read_text(dir / "goodput.svg");
  return in;
}

} // namespace

int report_command(const ReportOptions& o) {
  fs::path dir(o.result_dir);
  ReportInputs inputs = read_inputs(dir);
  std::string out_path = o.out.empty() ? (dir / "report.html").string() : o.out;
  std::ofstream out = open_output(out_path, "report");
  out << render_report(inputs);
  close_output(out, out_path);
  logger("trainsim.report")->info("report of {} written to {}", o.result_dir, out_path);
  std::cout << out_path << "\n";
  return 0;
}

void add_report_command(CLI::App& app, cli::Command& command) {
  auto [cmd, r] = cli::add_command<ReportOptions>(
      app, command, "report", "one self-contained HTML page from a trainsim run --out directory",
      report_command);
  cmd->add_option("result_dir", r.result_dir,
                  "directory with result.json (and trace.json, links.csv, frontier.svg, goodput.svg)")
      ->required();
  cmd->add_option("-o,--out", r.out, "HTML file to write (default: RESULT_DIR/report.html)");
}

} // namespace trainsim
