#include "tools/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "models/error.hpp"
#include "models/units.hpp"
#include "sim/log.hpp"
#include "tools/output_file.hpp"
#include "tools/run_outputs.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

// --- small SVG/HTML helpers --------------------------------------------------------------------

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string seconds(double s) { return format(Seconds(s)); }

std::string percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * f);
  return buf;
}

std::string fixed_percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", 100 * f);
  return buf;
}

struct Box {
  double x, y, w, h;
};

std::string rect(const Box& b, const std::string& fill, const std::string& title = "") {
  std::string r = "<rect x=\"" + num(b.x) + "\" y=\"" + num(b.y) + "\" width=\"" + num(b.w) + "\" height=\"" +
                  num(b.h) + "\" fill=\"" + fill + "\"";
  return title.empty() ? r + "/>\n" : r + "><title>" + escape(title) + "</title></rect>\n";
}

std::string text(double x, double y, const std::string& s, const std::string& attrs = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" " + attrs + ">" + escape(s) + "</text>\n";
}

std::string svg_open(const std::string& id, double width, double height) {
  return "<svg id=\"" + id + "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" +
         num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
         "\" font-family=\"sans-serif\" font-size=\"11\">\n";
}

// One colour per breakdown category and trace kind (colour-blind-safe Tableau 10).
const std::map<std::string, std::string>& colours() {
  static const std::map<std::string, std::string> c = {
      {"compute", "#4e79a7"},      {"tp_comm", "#f28e2b"},      {"tp", "#f28e2b"},
      {"pp_comm", "#e15759"},      {"pp_transfer", "#e15759"},  {"pp_send_wait", "#ff9d9a"},
      {"dp_comm", "#76b7b2"},      {"dp", "#76b7b2"},           {"dp_background", "#76b7b2"},
      {"ep_comm", "#59a14f"},      {"ep", "#59a14f"},           {"bubble", "#edc948"},
      {"idle", "#d4d4d4"}};
  return c;
}

std::string colour(const std::string& key) {
  auto it = colours().find(key);
  return it == colours().end() ? "#999999" : it->second;
}

const std::vector<std::string>& categories() {
  static const std::vector<std::string> c = {"compute", "tp_comm", "pp_comm", "dp_comm", "ep_comm", "bubble", "idle"};
  return c;
}

std::string legend(const std::vector<std::string>& keys, double y) {
  std::string out;
  double x = 10;
  for (const auto& k : keys) {
    out += rect({x, y - 9, 10, 10}, colour(k)) + text(x + 14, y, k);
    x += 24 + 7.0 * static_cast<double>(k.size());
  }
  return out;
}

// --- charts --------------------------------------------------------------------------------------

constexpr double kWidth = 900, kLeft = 110, kRight = 20;

// Stacked bars, one per stage: where each stage's GPUs spend the step.
std::string stage_chart(const nlohmann::json& result) {
  const nlohmann::json& stages = result.at("stages");
  double step = result.at("step_time_s").get<double>();
  double plot = kWidth - kLeft - kRight, bar = 16, gap = 6, top = 30;
  double height = top + static_cast<double>(stages.size()) * (bar + gap) + 24;
  std::string svg = svg_open("stage-breakdown", kWidth, height) + legend(categories(), 14);
  double y = top;
  for (const auto& st : stages) {
    svg += text(kLeft - 8, y + 12, "stage " + std::to_string(st.at("stage").get<int>()), "text-anchor=\"end\"");
    double x = kLeft;
    for (const auto& cat : categories()) {
      double t = st.value(cat, 0.0);
      double w = t / step * plot;
      if (w <= 0) continue;
      svg += rect({x, y, w, bar}, colour(cat), cat + ": " + seconds(t) + " (" + percent(t / step) + ")");
      x += w;
    }
    y += bar + gap;
  }
  svg += text(kLeft, y + 12, "0") + text(kWidth - kRight, y + 12, seconds(step), "text-anchor=\"end\"");
  return svg + "</svg>\n";
}

// The closed-form lower bound beside the simulated step time.
std::string bound_chart(const nlohmann::json& result) {
  double step = result.at("step_time_s").get<double>();
  double bound = result.at("bound").at("step_time_s").get<double>();
  double plot = kWidth - kLeft - kRight - 140, scale = plot / std::max(step, bound);
  std::string svg = svg_open("bound", kWidth, 70);
  svg += text(kLeft - 8, 22, "bound", "text-anchor=\"end\"") + rect({kLeft, 10, bound * scale, 18}, "#9c755f") +
         text(kLeft + bound * scale + 6, 23, seconds(bound) + " (" + result.at("bound").value("limiting", "") + ")");
  svg += text(kLeft - 8, 52, "simulated", "text-anchor=\"end\"") + rect({kLeft, 40, step * scale, 18}, "#4e79a7") +
         text(kLeft + step * scale + 6, 53, seconds(step));
  return svg + "</svg>\n";
}

struct Track {
  std::string name;
  std::vector<const nlohmann::json*> events;
};

// Up to `limit` main GPU tracks (even tids; odd ones are background), taken round-robin
// over the stages so every stage of the pipeline shows.
std::vector<Track> main_tracks(const nlohmann::json& trace, size_t limit) {
  std::map<long, std::map<long, Track>> by_stage; // pid -> tid -> track
  for (const auto& ev : trace.at("traceEvents")) {
    long tid = ev.value("tid", -1L);
    if (tid < 0 || tid % 2 != 0) continue;
    Track& t = by_stage[ev.value("pid", 0L)][tid];
    if (ev.value("ph", "") == "M" && ev.value("name", "") == "thread_name") t.name = ev["args"].value("name", "");
    if (ev.value("ph", "") == "X") t.events.push_back(&ev);
  }
  std::vector<Track> out;
  for (size_t i = 0; out.size() < limit; ++i) {
    size_t before = out.size();
    for (auto& [pid, tracks] : by_stage)
      if (i < tracks.size() && out.size() < limit)
        out.push_back(std::move(std::next(tracks.begin(), static_cast<long>(i))->second));
    if (out.size() == before) break;
  }
  return out;
}

std::string timeline_chart(const nlohmann::json& trace, double step) {
  std::vector<Track> tracks = main_tracks(trace, 16);
  double left = 190, plot = kWidth - left - kRight, row = 14, top = 30;
  double scale = plot / (step * 1e6); // trace times are microseconds
  std::string svg = svg_open("timeline", kWidth, top + static_cast<double>(tracks.size()) * (row + 3) + 24);
  svg += legend({"compute", "tp", "pp_transfer", "pp_send_wait", "dp", "ep", "bubble"}, 14);
  double y = top;
  for (const Track& t : tracks) {
    svg += text(left - 6, y + 11, t.name, "text-anchor=\"end\"");
    for (const nlohmann::json* ev : t.events) {
      double w = ev->at("dur").get<double>() * scale;
      if (w < 0.05) continue; // below a twentieth of a pixel it would not show
      svg += rect({left + ev->at("ts").get<double>() * scale, y, w, row}, colour(ev->value("cat", "")),
                  ev->value("name", ""));
    }
    y += row + 3;
  }
  svg += text(left, y + 12, "0") + text(kWidth - kRight, y + 12, seconds(step), "text-anchor=\"end\"");
  return svg + "</svg>\n";
}

// Utilization bands, finer at the low end where most links of a large fabric sit.
const std::vector<double>& band_edges() {
  static const std::vector<double> edges = {0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0};
  return edges;
}

size_t band(double utilization) {
  const auto& e = band_edges();
  size_t b = 0;
  while (b + 2 < e.size() && utilization >= e[b + 1]) ++b;
  return b; // the last band also holds anything at or above 100 %
}

std::string band_label(size_t b) {
  const auto& e = band_edges();
  return fixed_percent(e[b]) + "-" + fixed_percent(e[b + 1]);
}

// Rows: tiers; columns: utilization bands; cell: how many link directions, shaded by the
// share of the tier's links in that band.
std::string heatmap_chart(const std::vector<LinkUse>& links) {
  size_t bands = band_edges().size() - 1;
  std::map<std::string, std::vector<int>> bins;
  for (const LinkUse& l : links)
    bins.try_emplace(l.tier, std::vector<int>(bands, 0)).first->second[band(l.utilization)] += 1;
  double cell_w = (kWidth - kLeft - kRight) / static_cast<double>(bands), cell_h = 24, top = 24;
  std::string svg = svg_open("link-heatmap", kWidth, top + static_cast<double>(bins.size()) * cell_h + 30);
  for (size_t b = 0; b < bands; ++b)
    svg += text(kLeft + (static_cast<double>(b) + 0.5) * cell_w, 16, band_label(b), "text-anchor=\"middle\"");
  double y = top;
  for (const auto& [tier, row] : bins) {
    int total = 0;
    for (int n : row) total += n;
    svg += text(kLeft - 8, y + 16, tier + " (" + std::to_string(total) + ")", "text-anchor=\"end\"");
    for (size_t b = 0; b < row.size(); ++b) {
      double share = static_cast<double>(row[b]) / total;
      std::string fill = row[b] == 0 ? "#f4f4f4" : "rgb(" + std::to_string(static_cast<int>(255 - 200 * share)) + "," +
                                                       std::to_string(static_cast<int>(235 - 160 * share)) + ",230)";
      double x = kLeft + static_cast<double>(b) * cell_w;
      svg += rect({x, y, cell_w - 2, cell_h - 2}, fill, tier + ": " + std::to_string(row[b]) + " link directions");
      std::string ink = share > 0.5 ? "fill=\"white\" " : "";
      if (row[b] > 0) svg += text(x + cell_w / 2, y + 15, std::to_string(row[b]), ink + "text-anchor=\"middle\"");
    }
    y += cell_h;
  }
  svg += text(kLeft, y + 16, "utilization = bytes / bandwidth / step time, per link direction that carried bytes");
  return svg + "</svg>\n";
}

// --- page ----------------------------------------------------------------------------------------

std::string summary_table(const nlohmann::json& r) {
  const auto& p = r.at("parallelism");
  double step = r.at("step_time_s").get<double>(), bound = r.at("bound").at("step_time_s").get<double>();
  auto row = [](const std::string& k, const std::string& v) {
    return "<tr><th>" + k + "</th><td>" + escape(v) + "</td></tr>\n";
  };
  std::string t = "<table>\n";
  t += row("scenario", r.value("scenario", "")) + row("model", r.value("model", ""));
  t += row("GPUs", std::to_string(r.value("gpus", 0)) + " (DP " + std::to_string(p.value("dp", 0)) + " x TP " +
                       std::to_string(p.value("tp", 0)) + " x PP " + std::to_string(p.value("pp", 0)) + ", " +
                       p.value("schedule", "") + ", " + std::to_string(p.value("microbatches", 0)) + " microbatches)");
  t += row("step time", seconds(step)) + row("MFU", percent(r.value("mfu", 0.0)));
  t += row("closed-form bound", seconds(bound) + "; simulated / bound = " + num(step / bound));
  return t + "</table>\n";
}

std::string section(const std::string& title, const std::string& note, const std::string& body) {
  return "<h2>" + escape(title) + "</h2>\n<p class=\"note\">" + escape(note) + "</p>\n" + body;
}

std::string strip_xml_prolog(const std::string& svg) {
  auto at = svg.find("<svg");
  if (at == std::string::npos) return "";
  std::string out = svg.substr(at);
  return out.replace(0, 4, "<svg id=\"frontier\"");
}

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
    throw InputError(dir.string(), "no result.json here (write one with: trainsim run SCENARIO --out DIR)");
  ReportInputs in;
  in.result = read_json(dir / "result.json");
  if (!in.result.contains("stages"))
    throw InputError((dir / "result.json").string(), "has no per-stage breakdown: rerun trainsim run --out");
  if (fs::exists(dir / "trace.json")) in.trace = read_json(dir / "trace.json");
  if (fs::exists(dir / "links.csv")) in.links = read_links(dir / "links.csv");
  if (fs::exists(dir / "frontier.svg")) in.frontier_svg = read_text(dir / "frontier.svg");
  return in;
}

constexpr const char* kStyle = R"(<style>
body { font-family: sans-serif; max-width: 940px; margin: 20px auto; color: #222; }
table { border-collapse: collapse; } th, td { text-align: left; padding: 2px 12px 2px 0; }
th { font-weight: normal; color: #555; } h2 { margin-top: 28px; font-size: 17px; }
.note { color: #666; font-size: 13px; margin: 2px 0 8px; } svg { display: block; }
</style>
)";

} // namespace

std::string render_report(const ReportInputs& in) {
  const nlohmann::json& r = in.result;
  double step = r.at("step_time_s").get<double>();
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>trainsim report: " +
                     escape(r.value("model", "")) + "</title>\n" + kStyle + "</head><body>\n";
  html += "<h1>trainsim report</h1>\n" + summary_table(r);
  html += section("Step breakdown per pipeline stage", "mean over each stage's GPUs; the bars add up to the step time",
                  stage_chart(r));
  html += section("Closed-form bound and simulation", "the bound is a lower bound on the step time", bound_chart(r));
  if (in.trace)
    html += section("Timeline excerpt", "the first traced GPUs; the full trace.json opens in ui.perfetto.dev",
                    timeline_chart(*in.trace, step));
  if (!in.links.empty())
    html += section("Link utilization by tier", "link directions per utilization band (from links.csv)",
                    heatmap_chart(in.links));
  if (!in.frontier_svg.empty())
    html += section("Frontier", "from trainsim frontier --out", strip_xml_prolog(in.frontier_svg));
  return html + "</body></html>\n";
}

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

} // namespace trainsim
