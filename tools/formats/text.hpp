// Number and field formatting shared by every output format: one printf-style formatter,
// one percentage, one CSV field quoting, one markdown table row.
#pragma once

#include <string>
#include <vector>

namespace trainsim {

/// `value` through a printf format with one floating-point conversion, e.g. ("%.3f", x).
std::string formatted(const char* printf_format, double value);

/// A fraction as a percentage with one decimal: 0.4078 -> "40.8 %".
std::string percent(double fraction);

/// A relative difference, signed, with two decimals: 0.0093 -> "+0.93%" (validation tables).
std::string signed_percent(double fraction);

/// Seconds as milliseconds, four significant digits: 0.0168972 -> "16.9" (validation tables).
std::string milliseconds(double seconds);

/// A count with its thousands grouped as the docs write them: 32768 -> "32,768".
std::string with_thousands(long count);

/// Every digit a double needs to read back the same in the CSV and JSON files people sum:
/// formatted("%.9g", value) for times, rates and ratios.
std::string csv_number(double value);

/// A CSV field (RFC 4180): quoted, with quotes doubled, only when it holds a comma, a quote
/// or a newline.
std::string csv_field(const std::string& text);

/// One row of a markdown table: "| a | b |\n".
std::string markdown_row(const std::vector<std::string>& cells);

/// A markdown table's header row and its "|---|" rule.
std::string markdown_header(const std::vector<std::string>& columns);

} // namespace trainsim
