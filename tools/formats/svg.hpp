// The few SVG elements the report and the frontier plot draw, written as text: both outputs
// are self-contained files, so there is no DOM, only strings with escaped content.
#pragma once

#include <string>

namespace trainsim::svg {

/// A coordinate or length with two decimals: a hundredth of a pixel is below what shows.
std::string num(double v);

/// `s` with <, >, & and " escaped, for text content and attribute values.
std::string escape(const std::string& s);

struct Box {
  double x, y, w, h;
};

/// A filled rectangle; with a title, the browser shows it on hover.
std::string rect(const Box& b, const std::string& fill, const std::string& title = "");

/// `s` at (x, y); `attrs` are extra attributes, e.g. text-anchor="end".
std::string text(double x, double y, const std::string& s, const std::string& attrs = "");

std::string line(double x1, double y1, double x2, double y2, const std::string& attrs);

/// The opening tag of an inline <svg> with its id, size and default font.
std::string open(const std::string& id, double width, double height);

} // namespace trainsim::svg
