#include "tools/formats/text.hpp"

#include <cstdio>

namespace trainsim {

std::string formatted(const char* printf_format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, printf_format, value);
  return buffer;
}

std::string percent(double fraction) { return formatted("%.1f %%", 100.0 * fraction); }

std::string signed_percent(double fraction) { return formatted("%+.2f%%", 100.0 * fraction); }

std::string milliseconds(double seconds) { return formatted("%.4g", seconds * 1e3); }

std::string with_thousands(long count) {
  std::string digits = std::to_string(count < 0 ? -count : count), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return count < 0 ? "-" + out : out;
}

std::string csv_number(double value) { return formatted("%.9g", value); }

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string markdown_row(const std::vector<std::string>& cells) {
  std::string row = "|";
  for (const std::string& cell : cells) row.append(" ").append(cell).append(" |");
  return row + "\n";
}

std::string markdown_header(const std::vector<std::string>& columns) {
  std::string rule = "|";
  for (size_t i = 0; i < columns.size(); ++i) rule += "---|";
  return markdown_row(columns) + rule + "\n";
}

} // namespace trainsim
