#include "tools/report_charts.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "tools/chart_axis.hpp"
#include "tools/svg.hpp"

namespace trainsim {
namespace {

using svg::rect;
using svg::text;

std::string seconds(double s) { return format(Seconds(s)); }

const std::vector<std::string>& categories() {
  static const std::vector<std::string> c = {"compute", "tp_comm", "pp_comm", "dp_comm", "ep_comm", "bubble", "idle"};
  return c;
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

} // namespace

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
  return buf;
}

std::string colour(const std::string& key) {
  static const std::map<std::string, std::string> c = {
      {"compute", "#4e79a7"},      {"tp_comm", "#f28e2b"},      {"tp", "#f28e2b"},
      {"pp_comm", "#e15759"},      {"pp_transfer", "#e15759"},  {"pp_send_wait", "#ff9d9a"},
      {"dp_comm", "#76b7b2"},      {"dp", "#76b7b2"},           {"dp_background", "#76b7b2"},
      {"ep_comm", "#59a14f"},      {"ep", "#59a14f"},           {"bubble", "#edc948"},
      {"idle", "#d4d4d4"}};
  auto it = c.find(key);
  return it == c.end() ? "#999999" : it->second;
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
    doc += text(kChartLeft - 8, y + 12, "stage " + std::to_string(st.at("stage").get<int>()), "text-anchor=\"end\"");
    double x = kChartLeft;
    for (const auto& cat : categories()) {
      double t = st.value(cat, 0.0);
      double w = t / step * plot;
      if (w <= 0) continue;
      doc += rect({x, y, w, bar}, colour(cat), cat + ": " + seconds(t) + " (" + percent(t / step) + ")");
      x += w;
    }
    y += bar + gap;
  }
  return doc + time_axis(kChartLeft, plot, axis, Seconds(step)) + "</svg>\n";
}

std::string bound_chart(const nlohmann::json& result) {
  double step = result.at("step_time_s").get<double>();
  double bound = result.at("bound").at("step_time_s").get<double>();
  double plot = kChartWidth - kChartLeft - kChartRight - 140, scale = plot / std::max(step, bound);
  std::string doc = svg::open("bound", kChartWidth, 70);
  doc += text(kChartLeft - 8, 22, "bound", "text-anchor=\"end\"") + rect({kChartLeft, 10, bound * scale, 18}, "#9c755f") +
         text(kChartLeft + bound * scale + 6, 23, seconds(bound) + " (" + result.at("bound").value("limiting", "") + ")");
  doc += text(kChartLeft - 8, 52, "simulated", "text-anchor=\"end\"") + rect({kChartLeft, 40, step * scale, 18}, "#4e79a7") +
         text(kChartLeft + step * scale + 6, 53, seconds(step));
  return doc + "</svg>\n";
}

std::string timeline_chart(const nlohmann::json& trace, Seconds step) {
  std::vector<Track> tracks = main_tracks(trace, 16);
  double left = 190, plot = kChartWidth - left - kChartRight, row = 14, top = 30;
  double scale = plot / (step.value() * 1e6); // trace times are microseconds
  double axis = top + static_cast<double>(tracks.size()) * (row + 3);
  std::string doc = svg::open("timeline", kChartWidth, axis + 36);
  doc += legend({"compute", "tp", "pp_transfer", "pp_send_wait", "dp", "ep", "bubble"}, 14);
  double y = top;
  for (const Track& t : tracks) {
    doc += text(left - 6, y + 11, t.name, "text-anchor=\"end\"");
    for (const nlohmann::json* ev : t.events) {
      double w = ev->at("dur").get<double>() * scale;
      if (w < 0.05) continue; // below a twentieth of a pixel it would not show
      doc += rect({left + ev->at("ts").get<double>() * scale, y, w, row}, colour(ev->value("cat", "")),
                  ev->value("name", ""));
    }
    y += row + 3;
  }
  return doc + time_axis(left, plot, axis, step) + "</svg>\n";
}

} // namespace trainsim
