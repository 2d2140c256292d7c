#include "tools/formats/svg.hpp"

#include <cstdio>

namespace trainsim::svg {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string rect(const Box& b, const std::string& fill, const std::string& title) {
  std::string r = "<rect x=\"" + num(b.x) + "\" y=\"" + num(b.y) + "\" width=\"" + num(b.w) +
                  "\" height=\"" + num(b.h) + "\" fill=\"" + fill + "\"";
  return title.empty() ? r + "/>\n" : r + "><title>" + escape(title) + "</title></rect>\n";
}

std::string text(double x, double y, const std::string& s, const std::string& attrs) {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" " + attrs + ">" + escape(s) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& attrs) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\" " + attrs + "/>\n";
}

std::string open(const std::string& id, double width, double height) {
  return "<svg id=\"" + id + "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) +
         "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
         "\" font-family=\"sans-serif\" font-size=\"11\">\n";
}

} // namespace trainsim::svg
