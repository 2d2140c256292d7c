#include "tools/formats/report_charts.hpp"

#include "sim/category.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "tools/formats/chart_axis.hpp"
#include "tools/formats/report.hpp"
#include "tools/formats/svg.hpp"

namespace trainsim {
namespace {

using svg::rect;
using svg::text;

std::string seconds(double s) { return format(Seconds(s)); }

std::vector<std::string> categories() {
  std::vector<std::string> names;
  for (sim::Category c : sim::kCategories) names.emplace_back(sim::name(c));
  return names;
}

// Stacks `parts` (name, seconds) from `x` at `scale` pixels per second; each segment's
// title names it, its time and its share of `total`.
std::string stacked_bar(const std::vector<std::pair<std::string, double>>& parts, double x,
                        double y, double h, double scale, double total) {
  std::string out;
  for (const auto& [name, t] : parts) {
    double w = t * scale;
    if (w <= 0) continue;
    out += rect({x, y, w, h}, colour(name),
                name + ": " + seconds(t) + " (" + chart_percent(t / total) + ")");
    x += w;
  }
  return out;
}

std::vector<std::pair<std::string, double>> breakdown_of(const nlohmann::json& by_category) {
  std::vector<std::pair<std::string, double>> parts;
  for (const std::string& c : categories()) parts.emplace_back(c, by_category.value(c, 0.0));
  return parts;
}

// The bound's terms; a result.json from before they were written has only the total.
std::vector<std::pair<std::string, double>> terms_of(const nlohmann::json& bound) {
  if (!bound.contains("terms")) return {{"bound", bound.at("step_time_s").get<double>()}};
  std::vector<std::pair<std::string, double>> parts;
  for (const auto& t : bound.at("terms"))
    parts.emplace_back(t.at("name").get<std::string>(), t.at("seconds").get<double>());
  return parts;
}

// A colour swatch inline in HTML text.
std::string rect_swatch(const std::string& key) {
  return "<span style=\"display:inline-block;width:10px;height:10px;margin-right:5px;background:" +
         colour(key) + "\"></span>";
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
    if (ev.value("ph", "") == "M" && ev.value("name", "") == "thread_name")
      t.name = ev["args"].value("name", "");
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

} // namespace

std::string chart_percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
  return buf;
}

std::string phase_of(const std::string& key) {
  static const std::map<std::string, std::string> aliases = {{"tp_comm", "tp"},
                                                             {"tp_background", "tp"},
                                                             {"pp_comm", "pp"},
                                                             {"pp_transfer", "pp"},
                                                             {"dp_comm", "dp"},
                                                             {"dp_background", "dp"},
                                                             {"dp_allreduce", "dp"},
                                                             {"ep_comm", "ep"},
                                                             {"cp_comm", "cp"},
                                                             {"bubble", "bubble"},
                                                             {"pipeline_bubble", "bubble"}};
  auto it = aliases.find(key);
  return it == aliases.end() ? key : it->second;
}

std::string colour(const std::string& key) {
  // Tableau 10 and 20 (colour-blind safe), one hue per phase; the bound's terms that are no
  // phase of the step (HBM, latency, network) have hues no phase uses.
  static const std::map<std::string, std::string> by_phase = {
      {"compute", "#4e79a7"},      {"tp", "#f28e2b"},      {"pp", "#e15759"},
      {"pp_send_wait", "#ff9d9a"}, {"dp", "#76b7b2"},      {"ep", "#59a14f"},
      {"cp", "#d37295"},           {"bubble", "#edc948"},  {"idle", "#d4d4d4"},
      {"offload", "#b6992d"},
      {"hbm", "#9c755f"},          {"latency", "#b07aa1"}, {"network", "#79706e"},
      {"bound", "#bab0ac"}};
  auto it = by_phase.find(phase_of(key));
  return it == by_phase.end() ? "#999999" : it->second;
}

std::string legend(const std::vector<std::string>& keys, double y, double x) {
  std::string out;
  for (const auto& k : keys) {
    out += rect({x, y - 9, 10, 10}, colour(k)) + text(x + 14, y, k);
    x += 24 + 7.0 * static_cast<double>(k.size());
  }
  return out;
}

std::string stage_chart(const nlohmann::json& result) {
  const nlohmann::json& stages = result.at("stages");
  double step = result.at("step_time_s").get<double>();
  double plot = kChartWidth - kChartLeft - kChartRight, bar = 16, gap = 6, top = 30;
  double axis = top + static_cast<double>(stages.size()) * (bar + gap);
  std::string doc = svg::open("stage-breakdown", kChartWidth, axis + 36) + legend(categories(), 14);
  double y = top;
  for (const auto& st : stages) {
    doc += text(kChartLeft - 8, y + 12, "stage " + std::to_string(st.at("stage").get<int>()),
                "text-anchor=\"end\"");
    doc += stacked_bar(breakdown_of(st), kChartLeft, y, bar, plot / step, step);
    y += bar + gap;
  }
  return doc + time_axis(kChartLeft, plot, axis, Seconds(step)) + "</svg>\n";
}

std::string bound_chart(const nlohmann::json& result) {
  double step = result.at("step_time_s").get<double>();
  const nlohmann::json& bound = result.at("bound");
  double total = bound.at("step_time_s").get<double>();
  double plot = kChartWidth - kChartLeft - kChartRight - 170, scale = plot / std::max(step, total);
  std::vector<std::string> term_names;
  for (const auto& [name, t] : terms_of(bound)) term_names.push_back(name);
  std::string doc = svg::open("bound", kChartWidth, 136);
  doc += text(kChartLeft - 8, 14, "bound terms", "text-anchor=\"end\" fill=\"#555\"") +
         legend(term_names, 14, kChartLeft);
  doc += text(kChartLeft - 8, 30, "simulated", "text-anchor=\"end\" fill=\"#555\"") +
         legend(categories(), 30, kChartLeft);
  doc += text(kChartLeft - 8, 57, "bound", "text-anchor=\"end\"") +
         stacked_bar(terms_of(bound), kChartLeft, 44, 18, scale, total) +
         text(kChartLeft + total * scale + 6, 57,
              seconds(total) + " (largest: " + bound.value("limiting", "") + ")");
  doc += text(kChartLeft - 8, 85, "simulated", "text-anchor=\"end\"") +
         stacked_bar(breakdown_of(result.at("breakdown")), kChartLeft, 72, 18, scale, step) +
         text(kChartLeft + step * scale + 6, 85, seconds(step) + " (step time)");
  return doc + time_axis(kChartLeft, plot, 100, Seconds(plot / scale)) + "</svg>\n";
}

std::string bound_terms_table(const nlohmann::json& result) {
  const nlohmann::json& bound = result.at("bound");
  if (!bound.contains("terms")) return "";
  double total = bound.at("step_time_s").get<double>();
  std::string t = "<table class=\"terms\">\n<tr><th>term</th><th>time</th><th>share</th><th>what "
                  "it counts</th></tr>\n";
  for (const auto& term : bound.at("terms")) {
    double s = term.at("seconds").get<double>();
    t += "<tr><td>" + svg::escape(term.at("name").get<std::string>()) + "</td><td>" + seconds(s) +
         "</td><td>" + chart_percent(s / total) + "</td><td>" +
         svg::escape(term.value("explanation", "")) + "</td></tr>\n";
  }
  return t + "</table>\n";
}

std::string breakdown_legend_table() {
  std::string t = "<table class=\"terms\">\n";
  for (sim::Category c : sim::kCategories)
    t += "<tr><td>" + rect_swatch(sim::name(c)) + sim::name(c) + "</td><td>" +
         svg::escape(sim::meaning(c)) + "</td></tr>\n";
  return t + "</table>\n";
}

std::string timeline_chart(const nlohmann::json& trace, Seconds step) {
  std::vector<Track> tracks = main_tracks(trace, 16);
  double left = 190, plot = kChartWidth - left - kChartRight, row = 14, top = 30;
  double scale = plot / (step.value() * 1e6); // trace times are microseconds
  double axis = top + static_cast<double>(tracks.size()) * (row + 3);
  std::string doc = svg::open("timeline", kChartWidth, axis + 36);
  doc += legend({"compute", "tp", "pp_transfer", "pp_send_wait", "dp", "ep", "cp", "bubble"}, 14);
  double y = top;
  for (const Track& t : tracks) {
    doc += text(left - 6, y + 11, t.name, "text-anchor=\"end\"");
    for (const nlohmann::json* ev : t.events) {
      double w = ev->at("dur").get<double>() * scale;
      if (w < 0.05) continue; // below a twentieth of a pixel it would not show
      doc += rect({left + ev->at("ts").get<double>() * scale, y, w, row},
                  colour(ev->value("cat", "")), ev->value("name", ""));
    }
    y += row + 3;
  }
  return doc + time_axis(left, plot, axis, step) + "</svg>\n";
}

} // namespace trainsim
