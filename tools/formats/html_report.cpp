#include "tools/formats/html_report.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "models/error.hpp"
#include "models/units.hpp"
#include "sim/log.hpp"
#include "tools/io/output_file.hpp"
#include "tools/formats/report.hpp"
#include "tools/formats/report_charts.hpp"
#include "tools/formats/svg.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

using svg::escape;

std::string seconds(double s) { return format(Seconds(s)); }

// --- page ----------------------------------------------------------------------------------------

std::string summary_table(const nlohmann::json& r) {
  const auto& p = r.at("parallelism");
  double step = r.at("step_time_s").get<double>(),
         bound = r.at("bound").at("step_time_s").get<double>();
  auto row = [](const std::string& k, const std::string& v) {
    return "<tr><th>" + k + "</th><td>" + escape(v) + "</td></tr>\n";
  };
  std::string t = "<table>\n";
  t += row("scenario", r.value("scenario", "")) + row("model", r.value("model", ""));
  t +=
      row("GPUs", std::to_string(r.value("gpus", 0)) + " (DP " + std::to_string(p.value("dp", 0)) +
                      " x TP " + std::to_string(p.value("tp", 0)) +
                      (p.value("tp_2d", 1) > 1 ? " x TP2 " + std::to_string(p.value("tp_2d", 1))
                                               : std::string()) +
                      " x PP " + std::to_string(p.value("pp", 0)) + ", " + p.value("schedule", "") +
                      ", " + std::to_string(p.value("microbatches", 0)) + " microbatches)");
  t += row("step time", seconds(step)) + row("MFU", chart_percent(r.value("mfu", 0.0)));
  if (r.contains("hfu")) t += row("HFU", chart_percent(r.value("hfu", 0.0)));
  t += row("closed-form bound", seconds(bound) + "; simulated / bound = " + svg::num(step / bound));
  return t + "</table>\n";
}

std::string section(const std::string& title, const std::string& note, const std::string& body) {
  return "<h2>" + escape(title) + "</h2>\n<p class=\"note\">" + escape(note) + "</p>\n" + body;
}

// result.json's critical_path: the GPUs it spends most time on, its hand-overs and links.
std::string critical_path_table(const nlohmann::json& p) {
  auto list = [](const nlohmann::json& items, const char* key, const char* time) {
    std::string out;
    for (const auto& i : items) {
      std::string name = i.at(key).is_string() ? i.at(key).get<std::string>()
                                               : "rank " + std::to_string(i.at(key).get<int>());
      out += (out.empty() ? "" : ", ") + name + " (" + seconds(i.at(time).get<double>()) + ")";
    }
    return out.empty() ? std::string("none") : out;
  };
  std::string hand_overs;
  for (const auto& h : p.at("hand_overs")) {
    // As the text report words it; older result.json files have no contention_s.
    CriticalPath::HandOvers kind{h.at("via").get<std::string>(), h.at("count").get<int>(),
                                 Seconds(h.at("transfer_s").get<double>()),
                                 Seconds(h.value("contention_s", 0.0))};
    hand_overs += (hand_overs.empty() ? "" : ", ") + kind.via + " " + std::to_string(kind.count) +
                  " (" + hand_over_time(kind) + ")";
  }
  auto row = [](const std::string& k, const std::string& v) {
    return "<tr><th>" + k + "</th><td>" + escape(v) + "</td></tr>\n";
  };
  return "<table>\n" +
         row("from, to", "rank " + std::to_string(p.at("first_rank").get<int>()) + " to rank " +
                             std::to_string(p.at("last_rank").get<int>()) + ", through " +
                             std::to_string(p.at("ranks").get<int>()) +
                             (p.at("ranks").get<int>() == 1 ? " GPU" : " GPUs")) +
         row("longest on", list(p.at("longest_on"), "rank", "s")) +
         row("hand-overs", hand_overs.empty() ? "none" : hand_overs) +
         row("links", list(p.at("links"), "link", "s")) +
         row("slow GPUs on it", list(p.at("slow_on"), "rank", "s")) + "</table>\n";
}

// A number as a person reads it: by the unit its key names (result.json's keys end in their
// SI unit), else with four significant digits, never 989000000000000.0 or 0.8656716417910447.
std::string number_text(const std::string& key, double v) {
  auto ends = [&](const char* suffix) {
    std::string_view k(key), s(suffix);
    return k.size() >= s.size() && k.substr(k.size() - s.size()) == s;
  };
  if (ends("flop_per_s")) return format(FlopPerSecond(v));
  if (ends("bytes_per_s")) return format(BytesPerSecond(v));
  if (ends("bytes")) return format(Bytes(v));
  if (ends("_s")) return format(Seconds(v));
  char text[32];
  if (v == std::round(v) && std::fabs(v) < 1e15) // a count: every digit (d_ff 11008)
    std::snprintf(text, sizeof text, "%.0f", v);
  else
    std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

// A resolved value: numbers by their key's unit, lists and tables item by item (the flash
// attention rates: "d64: 141 TFLOP/s, 192 TFLOP/s, ..."), a spec's "6.4e+10Bps" as "64 GB/s".
std::string value_text(const std::string& key, const nlohmann::json& v) {
  if (v.is_number()) return number_text(key, v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_string()) {
    std::string text = v.get<std::string>();
    if (text.find("e+") == std::string::npos && text.find("e-") == std::string::npos) return text;
    try {
      if (text.find("Bps") != std::string::npos) return format(parse_bandwidth(text));
      if (text.back() == 's') return format(parse_seconds(text));
    } catch (const std::invalid_argument&) {}
    return text;
  }
  std::string out;
  for (const auto& [k, item] : v.items())
    out += (out.empty()    ? ""
            : v.is_array() ? ", "
                           : "; ") +
           (v.is_array() ? "" : k + ": ") + value_text(key, item);
  return out;
}

// result.json's "memory": each stage's GPU against the HBM it has, part by part.
std::string memory_table(const nlohmann::json& m) {
  double capacity = m.at("capacity_bytes").get<double>();
  static const std::pair<const char*, const char*> parts[] = {{"weights", "weights_bytes"},
                                                              {"gradients", "gradients_bytes"},
                                                              {"optimizer", "optimizer_bytes"},
                                                              {"activations", "activations_bytes"},
                                                              {"total", "total_bytes"}};
  std::string t = "<table class=\"terms\">\n<tr><th>stage</th>";
  for (const auto& [name, key] : parts) t += "<th>" + std::string(name) + "</th>";
  t += "<th>of " + escape(format(Bytes(capacity))) + "</th></tr>\n";
  for (const auto& stage : m.at("stages")) {
    t += "<tr><td>" + std::to_string(stage.value("stage", 0)) + "</td>";
    for (const auto& [name, key] : parts)
      t += "<td>" + escape(format(Bytes(stage.value(key, 0.0)))) + "</td>";
    t += "<td>" + chart_percent(stage.value("total_bytes", 0.0) / capacity) + "</td></tr>\n";
  }
  return t + "</table>\n";
}

// result.json's "provenance": one row per resolved key, by part.
std::string provenance_table(const nlohmann::json& p) {
  auto row = [](const std::string& k, const std::string& v) {
    return "<tr><th>" + escape(k) + "</th><td>" + escape(v) + "</td></tr>\n";
  };
  std::string t = "<table class=\"resolved\">\n";
  t += row("trainsim", value_text("", p.value("trainsim", nlohmann::json("?"))));
  t += row("input", value_text("", p.at("input").value("file", nlohmann::json(""))) + ", " +
                        value_text("", p.at("input").value("hash", nlohmann::json(""))));
  const nlohmann::json& sc = p.at("scenario");
  auto part = [&](const std::string& name, const nlohmann::json& values) {
    for (const auto& [k, v] : values.items()) t += row(name + "." + k, value_text(k, v));
  };
  part("model", sc.at("model"));
  part("system.gpu", sc.at("system").at("gpu"));
  part("system.topology", sc.at("system").at("topology"));
  part("execution", sc.at("execution"));
  if (sc.contains("reliability")) part("reliability", sc.at("reliability"));
  if (sc.contains("faults"))
    for (const auto& [kind, entries] : sc.at("faults").items())
      for (const auto& entry : entries) t += row("faults." + kind, entry.get<std::string>());
  return t + "</table>\n";
}

// frontier.svg from before it carried its own id gets one, so the page's charts all have theirs.
std::string strip_xml_prolog(const std::string& svg) {
  auto at = svg.find("<svg");
  if (at == std::string::npos) return "";
  std::string out = svg.substr(at);
  if (out.rfind("<svg id=", 0) == 0) return out;
  return out.replace(0, 4, "<svg id=\"frontier\"");
}

// The heatmap, or one line saying why there is none: a report that silently lacks it reads
// as if no link were busy.
std::string links_section(const ReportInputs& in) {
  const char* title = "Link utilization by tier";
  if (!in.links.empty())
    return section(title,
                   "link directions per utilization band, each cell shaded by the hottest of them "
                   "(from links.csv)",
                   link_heatmap(in.links));
  if (!in.result.contains("link_tiers"))
    return section(title, "link statistics were not recorded (--no-link-stats)", "");
  if (in.result.at("link_tiers").empty())
    return section(title, "no link carried bytes in this step", "");
  return section(title, "links.csv is missing from the run directory", "");
}

constexpr const char* kStyle = R"(<style>
body { font-family: sans-serif; max-width: 940px; margin: 20px auto; color: #222; }
table { border-collapse: collapse; } th, td { text-align: left; padding: 2px 12px 2px 0; }
th { font-weight: normal; color: #555; } h2 { margin-top: 28px; font-size: 17px; }
.note { color: #666; font-size: 13px; margin: 2px 0 8px; } svg { display: block; }
table.terms { font-size: 13px; margin-top: 6px; } table.terms td { vertical-align: top; }
table.terms td:first-child { white-space: nowrap; }
table.resolved { font-size: 13px; margin-top: 6px; width: 100%; table-layout: fixed; }
table.resolved th { width: 34%; } table.resolved th, table.resolved td { vertical-align: top;
  overflow-wrap: anywhere; }
</style>
)";

} // namespace

std::string render_report(const ReportInputs& in) {
  const nlohmann::json& r = in.result;
  double step = r.at("step_time_s").get<double>();
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
                     "charset=\"utf-8\">\n<title>trainsim report: " +
                     escape(r.value("model", "")) + "</title>\n" + kStyle + "</head><body>\n";
  html += "<h1>trainsim report</h1>\n" + summary_table(r);
  html += section("Step breakdown per pipeline stage",
                  "mean over each stage's GPUs; the bars add up to the step time",
                  stage_chart(r) + breakdown_legend_table());
  html += section(
      "Closed-form bound and simulation",
      "the bound is a lower bound on the step time: the sum of its terms for the critical stage "
      "(docs/closed-form.md); the simulated bar is the mean breakdown per GPU",
      bound_chart(r) + bound_terms_table(r));
  if (in.trace)
    html += section("Timeline excerpt",
                    "the first traced GPUs; the full trace.json opens in ui.perfetto.dev",
                    timeline_chart(*in.trace, Seconds(step)));
  if (r.contains("critical_path"))
    html += section("Critical path",
                    "the chain of work and hand-overs the step's end waited on (docs/faults.md); "
                    "trace.json shows it as a track of its own",
                    critical_path_table(r.at("critical_path")));
  html += links_section(in);
  if (!in.frontier_svg.empty())
    html += section("Frontier", "from trainsim frontier --out", strip_xml_prolog(in.frontier_svg));
  if (!in.goodput_svg.empty())
    html += section("Goodput over a run",
                    "from trainsim goodput --out: the expected goodput (first order, Young-Daly) "
                    "against the checkpoint interval and the cluster size (docs/faults.md)",
                    strip_xml_prolog(in.goodput_svg));
  if (r.contains("memory"))
    html += section("Memory per GPU",
                    "what each pipeline stage's GPUs hold in HBM at their peak, against its "
                    "capacity (the memory check's figures)",
                    memory_table(r.at("memory")));
  if (r.contains("provenance"))
    html +=
        section("What was simulated",
                "the scenario as resolved, with every default filled in (result.json's provenance)",
                provenance_table(r.at("provenance")));
  return html + "</body></html>\n";
}

} // namespace trainsim
